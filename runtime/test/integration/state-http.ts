/** Small helpers for state API integration tests. */
import { expect } from 'chai';
import type { SvcdProcess } from '../support/index.js';

export async function expectError(res: Response, status: number, errorCode: string): Promise<{ errorCode: string; message: string }> {
  const text = await res.text();
  expect(res.status, text).to.equal(status);
  const body = JSON.parse(text) as { errorCode: string; message: string };
  expect(body.errorCode, text).to.equal(errorCode);
  expect(body.message).to.be.a('string').and.not.equal('');
  return body;
}

export async function expectStatus(res: Response, status: number): Promise<string> {
  const text = await res.text();
  expect(res.status, text).to.equal(status);
  return text;
}

/** Raw text of a stored value through the API, or undefined when missing (204). */
export async function getRaw(svcd: SvcdProcess, store: string, key: string): Promise<string | undefined> {
  const res = await svcd.request('GET', `/v1.0/state/${store}/${encodeURIComponent(key)}`);
  const text = await res.text();
  if (res.status === 204) return undefined;
  expect(res.status, text).to.equal(200);
  return text;
}

export async function etagOf(svcd: SvcdProcess, store: string, key: string): Promise<string> {
  const res = await svcd.request('GET', `/v1.0/state/${store}/${encodeURIComponent(key)}`);
  await res.arrayBuffer();
  expect(res.status).to.equal(200);
  return res.headers.get('etag')!;
}
