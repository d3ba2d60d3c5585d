import { buildIngestApp } from './app';
import { ingestGateway } from './deps';

const { config, deps } = ingestGateway.start();

ingestGateway.serve(deps, buildIngestApp(deps), { port: config.ports.ingest, details: { ingest_url: config.ingestUrl } });
