import { randomBytes } from 'node:crypto';
import { startGatewayProcess, type GatewayProcess } from '../server/testing/gatewayProcess.ts';
import { cardPayment } from '../server/testing/harness.ts';
import { measureHttp } from './http-load.ts';
import type { LoadResult } from './load-protocol.ts';
import { freshLocation, postgresSource } from './locations.ts';
import type { BenchSectionContext } from './section.ts';
import { formatRate } from './stats.ts';

/**
 * M (issue 24, PostgreSQL): payments per second of three gateway processes on one PostgreSQL, the load spread over
 * them (a load generator per instance, the bench's connections shared), next to one process on the same PostgreSQL
 * with all the connections. Every process and the database share the machine's cores: the figure says what running
 * several instances on one machine gains or costs, not what several machines would.
 */

const INSTANCES = 3;

export async function benchInstances(context: BenchSectionContext): Promise<void> {
  const source = postgresSource();
  if (!source) return;
  console.log(`\n[M] ${INSTANCES} gateway processes on one PostgreSQL next to one`);
  await context.withScope(async (scope) => {
    const location = await freshLocation('PostgreSQL', source);
    scope.defer(`remove PostgreSQL store at ${location.where}`, () => location.dispose());
    const entityId = randomBytes(16).toString('hex');
    const token = `bench-instances-${randomBytes(16).toString('hex')}`;
    const env = {
      DATA_DIR: location.dataDir,
      DATABASE_URL: location.databaseUrl ?? '',
      CARD_DATA_KEY: randomBytes(32).toString('hex'),
      PORT: '0',
      HOST: '127.0.0.1',
      DEMO_ENTITY_ID: entityId,
      DEMO_ACCESS_TOKEN: token,
      // The bench's payments are many more than a merchant's per-minute limits allow.
      THROTTLE_PAYMENT_CREATIONS_PER_MINUTE: '0',
      THROTTLE_REQUESTS_PER_MINUTE: '0',
    };
    const start = async (): Promise<{ process: GatewayProcess; url: string }> => {
      const process = startGatewayProcess(env);
      scope.defer('stop a gateway process', () => process.kill());
      return { process, url: /Gateway listening on (\S+)/.exec(await process.listening)?.[1] as string };
    };
    const instances = await Promise.all(Array.from({ length: INSTANCES }, start));
    const body = new URLSearchParams(cardPayment(entityId)).toString();
    const load = (url: string, connections: number) =>
      measureHttp({
        url: `${url}/v1/payments`,
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/x-www-form-urlencoded' },
        body,
        ...context.load,
        connections,
      });
    const total = (results: readonly LoadResult[]) => results.reduce((sum, result) => sum + result.measured.rate, 0);
    const connections = context.load.connections;
    const one = await load((instances[0] as { url: string }).url, connections);
    context.row(`M  POST /v1/payments, 1 instance, PostgreSQL`, one.measured, context.checkHttp('M one instance', one));
    const spread = await Promise.all(instances.map((instance) => load(instance.url, Math.max(1, Math.round(connections / INSTANCES)))));
    const failures = spread.filter((result) => result.measured.non2xx > 0 || result.measured.errors > 0).length;
    if (failures > 0) context.fail(`M: ${failures} of the ${INSTANCES} instances answered errors`);
    const rate = total(spread);
    context.ratio(
      `PostgreSQL: ${INSTANCES} instances (${connections} connections spread over them) ${formatRate(rate)} payments/s next to one instance ${formatRate(one.measured.rate)}/s (${((rate / one.measured.rate) * 100).toFixed(0)}%), on one machine`,
    );
  });
}
