/**
 * The floor under a Node.js sidecar's state API: Node's own HTTP server answering `GET /v1.0/state/<store>/<key>`
 * with a fixed ~300-byte JSON value and an ETag, and `POST /v1.0/state/<store>` with 204 once the body is read, with
 * no store and no framework behind it. `beside-daprd.sh state` measures it with the same client as svcd and daprd:
 * its CPU per request is what Node spends on the HTTP exchange alone, which svcd cannot go below.
 * Run: `node bench/dist/src/http-floor.js <port>`.
 */
import { createServer } from 'node:http';

const port = Number(process.argv[2]);
if (!Number.isInteger(port)) throw new Error('usage: http-floor.js <port>');
const value = Buffer.from(JSON.stringify({ text: 'x'.repeat(280) }));

createServer((req, res) => {
  if (req.method === 'GET') {
    res.writeHead(200, { 'content-type': 'application/json', etag: '1' });
    res.end(value);
    return;
  }
  req.resume();
  req.on('end', () => {
    res.writeHead(204);
    res.end();
  });
}).listen(port, '127.0.0.1');
