/**
 * The shared Redis, PostgreSQL and NATS servers tests use (started by scripts/ensure-services.sh). Tests isolate
 * themselves with random key prefixes, app ids and table names; they never flush or drop what they did not create.
 */
export const TEST_REDIS_HOST = process.env.SVC_TEST_REDIS_HOST ?? '127.0.0.1:6379';
export const TEST_POSTGRES_URL = process.env.SVC_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const TEST_NATS_URL = process.env.SVC_TEST_NATS_URL ?? 'nats://127.0.0.1:4222';
