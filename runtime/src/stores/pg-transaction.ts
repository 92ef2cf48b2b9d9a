import type pg from 'pg';

/**
 * Runs `work` in one SQL transaction on a pooled client: committed when it resolves, rolled back when it throws.
 *
 * While the client is checked out, PostgreSQL may end its session (idle_in_transaction_session_timeout after this
 * process was paused, an administrator, a failover): node-postgres then emits 'error' on the client, which would
 * crash the process without a listener. The error fails the transaction instead, and the broken client is
 * discarded rather than returned to the pool.
 */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const onError = (err: Error) => (broken = err);
  client.on('error', onError);
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    if (!broken) await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.off('error', onError);
    client.release(broken);
  }
}
