export { RUNTIME_VERSION } from "./version.js";
