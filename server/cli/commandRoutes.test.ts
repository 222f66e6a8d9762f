import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../testing/harness.ts';

/** `POST /admin/v1/commands` itself (the command line's side: entity.test.ts, with a gateway on the embedded store). */

const ADMIN_TOKEN = 'admin-token-of-the-command-route-test-0123456789';

describe('the admin API that runs a command in the gateway', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway('PGlite', { adminToken: ADMIN_TOKEN });
  });
  afterAll(async () => {
    await t?.close();
  });

  const send = (body: unknown, token = ADMIN_TOKEN, method = 'POST') =>
    t.gateway.app.request('/admin/v1/commands', {
      method,
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      ...(method === 'POST' ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });

  const lines = async (response: Response) => (await response.text()).trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);

  it('runs the command on its store and answers the result last, as JSON lines', async () => {
    const answer = await send({ args: ['entity', 'list'] });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toContain('application/x-ndjson');
    const [result] = await lines(answer);
    expect(result).toEqual({ exitCode: 0, stdout: expect.stringContaining(t.entityId), stderr: '' });
  });

  it('reads only the files it was sent, and sends back the files the command writes', async () => {
    const unsent = await lines(await send({ args: ['reconciliation', 'ftp', 'set', t.entityId, '--host', 'ftp.example.com', '--user', 'u', '--password-file', '/etc/passwd'] }));
    expect(unsent.at(-1)).toMatchObject({ exitCode: 1, stderr: expect.stringContaining('--password-file: cannot read /etc/passwd') });
    const day = new Date().toISOString().slice(0, 10);
    const written = await lines(await send({ args: ['reconciliation', 'download', t.entityId, day, '--out', '/tmp/never-written-by-the-gateway.csv'] }));
    const file = written.find((line) => 'file' in line)?.file as { path: string; base64: string };
    expect(file.path).toBe('/tmp/never-written-by-the-gateway.csv');
    expect(Buffer.from(file.base64, 'base64').toString('utf8')).toMatch(/\r\n$/);
    expect(written.at(-1)).toMatchObject({ exitCode: 0, stdout: expect.stringContaining('wrote ') });
  });

  it('answers a refused command with its usage and exit code 1, and a body that is no command with 400', async () => {
    const [refused] = await lines(await send({ args: ['entity', 'destroy'] }));
    expect(refused).toMatchObject({ exitCode: 1, stderr: expect.stringContaining('unknown command: entity destroy') });
    for (const body of ['not json', {}, { args: [] }, { args: 'entity list' }, { args: ['entity', 'list'], files: { a: 1 } }, { args: ['x'], other: true }]) {
      const answer = await send(body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(((await answer.json()) as { result: { parameterErrors: unknown[] } }).result.parameterErrors.length).toBeGreaterThan(0);
    }
    expect((await send({ args: ['entity', 'list'] }, 'not-the-admin-token')).status).toBe(403);
    expect((await send(undefined, ADMIN_TOKEN, 'GET')).status).toBe(405);
  });
});
