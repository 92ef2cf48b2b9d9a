/**
 * The courier: a second service the order workflow calls through the sidecars (service invocation). It books a
 * pick-up for a parcel and answers with the tracking number; a pick-up booked twice for one order (an activity
 * runs at least once) gets the same number. It trusts the caller's app id only because its sidecar wrote it.
 * `COURIER_PORT` (default 8082) is the port its svcd calls (`--app-port`).
 */
import http from 'node:http';

const port = Number(process.env.COURIER_PORT ?? 8082);
const pickups = new Map<string, string>();

http
  .createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/pickups') {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"no such route"}');
        return;
      }
      const { orderId, weightKg } = JSON.parse(body) as { orderId: string; weightKg: number };
      const trackingNumber = pickups.get(orderId) ?? `CR-${orderId}`;
      pickups.set(orderId, trackingNumber);
      console.log(`pick-up of ${weightKg} kg for ${orderId}, booked by app ${String(req.headers['dapr-caller-app-id'])}: ${trackingNumber}`);
      res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ trackingNumber }));
    });
  })
  .listen(port, '127.0.0.1', () => console.log(`courier listening on ${port}`));
