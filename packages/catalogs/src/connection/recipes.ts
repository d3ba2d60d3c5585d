// Ready-to-paste configurations of each engine's Iceberg REST support. Pure
// functions of the connection facts, so each is unit-tested for the exact
// credential, addresses and path-style setting it carries.

export const ENGINES = ['duckdb', 'pyiceberg', 'spark', 'snowflake'] as const;
export type Engine = (typeof ENGINES)[number];

/** The commercial cloud data platform only ever reads a Floe catalog. */
export const READ_ONLY_ENGINES: readonly Engine[] = ['snowflake'];

export interface ConnectionFacts {
  catalogUri: string;
  /** What the engine sends as `warehouse` (GET /v1/config?warehouse=). */
  warehouse: string;
  clientId: string;
  clientSecret: string;
  s3Endpoint: string;
  region: string;
  /** The catalog's name inside the engine. */
  alias: string;
}

const q = (s: string) => s.replace(/'/g, "''");

function duckdb(f: ConnectionFacts): string {
  return [
    'INSTALL iceberg; LOAD iceberg; INSTALL httpfs; LOAD httpfs;',
    `CREATE OR REPLACE SECRET ${f.alias}_catalog (`,
    '  TYPE ICEBERG,',
    `  CLIENT_ID '${q(f.clientId)}',`,
    `  CLIENT_SECRET '${q(f.clientSecret)}',`,
    `  OAUTH2_SERVER_URI '${q(f.catalogUri)}/v1/oauth/tokens'`,
    ');',
    '-- The catalog vends short-lived storage credentials for each table (endpoint, path-style, region included).',
    `ATTACH '${q(f.warehouse)}' AS ${f.alias} (`,
    '  TYPE ICEBERG,',
    `  SECRET ${f.alias}_catalog,`,
    `  ENDPOINT '${q(f.catalogUri)}',`,
    "  ACCESS_DELEGATION_MODE 'vended_credentials'",
    ');',
    `SHOW ALL TABLES;`,
  ].join('\n');
}

function pyiceberg(f: ConnectionFacts): string {
  return [
    'from pyiceberg.catalog import load_catalog',
    '',
    'catalog = load_catalog(',
    `    "${f.alias}",`,
    '    **{',
    '        "type": "rest",',
    `        "uri": "${f.catalogUri}",`,
    `        "credential": "${f.clientId}:${f.clientSecret}",`,
    `        "warehouse": "${f.warehouse}",`,
    '        "header.X-Iceberg-Access-Delegation": "vended-credentials",',
    `        "s3.endpoint": "${f.s3Endpoint}",`,
    '        "s3.path-style-access": "true",',
    `        "s3.region": "${f.region}",`,
    '    },',
    ')',
    'print(catalog.list_namespaces())',
  ].join('\n');
}

function spark(f: ConnectionFacts): string {
  const c = `spark.sql.catalog.${f.alias}`;
  return [
    'spark-sql \\',
    '  --packages org.apache.iceberg:iceberg-spark-runtime-3.5_2.12:1.10.0,org.apache.iceberg:iceberg-aws-bundle:1.10.0 \\',
    '  --conf spark.sql.extensions=org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions \\',
    `  --conf ${c}=org.apache.iceberg.spark.SparkCatalog \\`,
    `  --conf ${c}.type=rest \\`,
    `  --conf ${c}.uri=${f.catalogUri} \\`,
    `  --conf ${c}.credential=${f.clientId}:${f.clientSecret} \\`,
    `  --conf ${c}.warehouse=${f.warehouse} \\`,
    `  --conf ${c}.header.X-Iceberg-Access-Delegation=vended-credentials \\`,
    `  --conf ${c}.io-impl=org.apache.iceberg.aws.s3.S3FileIO \\`,
    `  --conf ${c}.s3.endpoint=${f.s3Endpoint} \\`,
    `  --conf ${c}.s3.path-style-access=true \\`,
    `  --conf ${c}.client.region=${f.region} \\`,
    `  --conf spark.sql.defaultCatalog=${f.alias}`,
  ].join('\n');
}

function snowflake(f: ConnectionFacts): string {
  const name = `${f.alias}_floe`.toUpperCase();
  return [
    `CREATE OR REPLACE CATALOG INTEGRATION ${name}`,
    '  CATALOG_SOURCE = ICEBERG_REST',
    '  TABLE_FORMAT = ICEBERG',
    `  CATALOG_NAMESPACE = 'default'`,
    '  REST_CONFIG = (',
    `    CATALOG_URI = '${q(f.catalogUri)}'`,
    `    CATALOG_NAME = '${q(f.warehouse)}'`,
    '    ACCESS_DELEGATION_MODE = VENDED_CREDENTIALS',
    '  )',
    '  REST_AUTHENTICATION = (',
    '    TYPE = OAUTH',
    `    OAUTH_TOKEN_URI = '${q(f.catalogUri)}/v1/oauth/tokens'`,
    `    OAUTH_CLIENT_ID = '${q(f.clientId)}'`,
    `    OAUTH_CLIENT_SECRET = '${q(f.clientSecret)}'`,
    "    OAUTH_ALLOWED_SCOPES = ('PRINCIPAL_ROLE:ALL')",
    '  )',
    '  ENABLED = TRUE;',
  ].join('\n');
}

const RECIPES: Record<Engine, (f: ConnectionFacts) => string> = { duckdb, pyiceberg, spark, snowflake };

export function recipeFor(engine: Engine, f: ConnectionFacts): string {
  return RECIPES[engine](f);
}

export function isEngine(v: string): v is Engine {
  return (ENGINES as readonly string[]).includes(v);
}
