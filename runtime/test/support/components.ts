export interface ComponentYamlOptions {
  readonly version?: string;
  readonly scopes?: readonly string[];
  readonly ignoreErrors?: boolean;
  readonly initTimeout?: string;
  readonly annotations?: Readonly<Record<string, string>>;
}

/** One Component document, for `SvcdProcess.start({ resources })`. Values are JSON-quoted, which is valid YAML. */
export function componentYaml(name: string, type: string, metadata: Readonly<Record<string, string>> = {}, opts: ComponentYamlOptions = {}): string {
  const lines = ['apiVersion: svc.io/v1alpha1', 'kind: Component', 'metadata:', `  name: ${name}`];
  if (opts.annotations) lines.push('  annotations:', ...Object.entries(opts.annotations).map(([k, v]) => `    ${k}: ${JSON.stringify(v)}`));
  lines.push('spec:', `  type: ${type}`, `  version: ${opts.version ?? 'v1'}`);
  if (opts.ignoreErrors !== undefined) lines.push(`  ignoreErrors: ${opts.ignoreErrors}`);
  if (opts.initTimeout !== undefined) lines.push(`  initTimeout: ${opts.initTimeout}`);
  const entries = Object.entries(metadata);
  if (entries.length > 0) {
    lines.push('  metadata:');
    for (const [k, v] of entries) lines.push(`    - name: ${k}`, `      value: ${JSON.stringify(v)}`);
  }
  if (opts.scopes) lines.push('scopes:', ...opts.scopes.map((s) => `  - ${s}`));
  return `${lines.join('\n')}\n`;
}
