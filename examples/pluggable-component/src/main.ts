#!/usr/bin/env node
/**
 * Example pluggable component: a transactional in-memory state store, an in-memory pub/sub, an "outbox"
 * binding (input and output) and a secret store behind ONE Unix socket, with gRPC reflection so svcd discovers
 * every API. Register it with one Component spec per API, `state.<name>`, `pubsub.<name>`, `bindings.<name>`,
 * `secretstores.<name>`, where <name> is the socket file name without `.sock`.
 */
import * as grpc from '@grpc/grpc-js';
import { ReflectionService } from '@grpc/reflection';
import { loadComponentsProto, COMPONENTS_PACKAGES, SVC_COMPONENTS_PACKAGE, type ComponentsPackage } from '@svc/proto';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { bindingServices } from './bindings-service.js';
import { pubSubService } from './pubsub-service.js';
import { secretStoreService } from './secret-store-service.js';
import { stateServices } from './state-service.js';

const REFLECTION_CHOICES = ['v1+v1alpha', 'v1alpha'] as const;
type ReflectionChoice = (typeof REFLECTION_CHOICES)[number];

const USAGE = `usage: svc-example-component [--name memstore] [--sockets-folder DIR] [--package ${COMPONENTS_PACKAGES.join('|')}] [--reflection ${REFLECTION_CHOICES.join('|')}] [--without-transactions]
  --name             socket file name without .sock; the component types become state.<name> and pubsub.<name>
  --sockets-folder   default: $SVC_COMPONENTS_SOCKETS_FOLDER, $DAPR_COMPONENTS_SOCKETS_FOLDER, $DAPR_COMPONENT_SOCKETS_FOLDER, or /tmp/svc-components-sockets
  --package          proto package the services are served under (dapr.proto.components.v1 mimics a Dapr component)
  --reflection       reflection versions to serve (v1alpha alone mimics older components)
  --without-transactions  serve no TransactionalStateStore and report no TRANSACTIONAL feature
`;

interface Settings {
  socketPath: string;
  pkg: ComponentsPackage;
  reflection: ReflectionChoice;
  transactions: boolean;
}

function settings(argv: string[]): Settings {
  const { values } = parseArgs({
    args: argv,
    options: {
      name: { type: 'string', default: 'memstore' },
      'sockets-folder': { type: 'string' },
      package: { type: 'string', default: SVC_COMPONENTS_PACKAGE },
      reflection: { type: 'string', default: 'v1+v1alpha' },
      'without-transactions': { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  const env = process.env;
  // The injector sets all three spellings; Dapr's SDKs read one or the other of the last two.
  const folder = values['sockets-folder'] ?? env.SVC_COMPONENTS_SOCKETS_FOLDER ?? env.DAPR_COMPONENTS_SOCKETS_FOLDER ?? env.DAPR_COMPONENT_SOCKETS_FOLDER ?? '/tmp/svc-components-sockets';
  if (!(COMPONENTS_PACKAGES as readonly string[]).includes(values.package)) throw new Error(`--package must be one of ${COMPONENTS_PACKAGES.join(', ')}`);
  if (!(REFLECTION_CHOICES as readonly string[]).includes(values.reflection)) throw new Error(`--reflection must be one of ${REFLECTION_CHOICES.join(', ')}`);
  return {
    socketPath: path.resolve(folder, `${values.name}.sock`),
    pkg: values.package as ComponentsPackage,
    reflection: values.reflection as ReflectionChoice,
    transactions: !values['without-transactions'],
  };
}

async function addReflection(server: grpc.Server, s: Settings, services: string[]): Promise<void> {
  // Whitelist what this server implements: without it, every service of the package would be advertised.
  const reflection = new ReflectionService(await loadComponentsProto()[s.pkg].definition(), { services });
  const v1Path = '/grpc.reflection.v1.ServerReflection/';
  reflection.addToServer({
    addService: (def, impl) => {
      const isV1 = Object.values(def).some((m) => m.path.startsWith(v1Path));
      if (s.reflection === 'v1alpha' && isV1) return;
      server.addService(def, impl);
    },
  });
}

async function main(): Promise<void> {
  const s = settings(process.argv.slice(2));
  const proto = loadComponentsProto()[s.pkg];
  // svcd accepts state requests of several MiB; grpc's default 4 MiB limit would refuse the largest values.
  const server = new grpc.Server({ 'grpc.max_receive_message_length': 256 * 1024 * 1024 });
  const { state, transactional } = stateServices({ transactions: s.transactions });
  server.addService(proto.grpc.StateStore.service, state);
  if (transactional) server.addService(proto.grpc.TransactionalStateStore.service, transactional);
  server.addService(proto.grpc.PubSub.service, pubSubService());
  const bindings = bindingServices();
  server.addService(proto.grpc.InputBinding.service, bindings.input);
  server.addService(proto.grpc.OutputBinding.service, bindings.output);
  server.addService(proto.grpc.SecretStore.service, secretStoreService());
  const served = ['StateStore', ...(transactional ? ['TransactionalStateStore'] : []), 'PubSub', 'InputBinding', 'OutputBinding', 'SecretStore'];
  await addReflection(server, s, served.map((n) => `${s.pkg}.${n}`));

  mkdirSync(path.dirname(s.socketPath), { recursive: true });
  // A socket file left by a previous run would make bind fail.
  rmSync(s.socketPath, { force: true });
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(`unix://${s.socketPath}`, grpc.ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())),
  );
  process.stdout.write(`example component listening on ${s.socketPath} (package ${s.pkg}, reflection ${s.reflection})\n`);

  const stop = () => {
    server.tryShutdown(() => {
      rmSync(s.socketPath, { force: true });
      process.exit(0);
    });
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`svc-example-component: ${(err as Error).message}\n${USAGE}`);
  process.exit(1);
});
