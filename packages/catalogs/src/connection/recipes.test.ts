import { ENGINES, recipeFor } from './recipes';

const facts = {
  catalogUri: 'http://catalog.example:8181', warehouse: 'wh-123', clientId: 't-abc', clientSecret: "cs_se'cret",
  s3Endpoint: 'http://s3.example:7480', region: 'local-1', alias: 'lake',
};

describe('connection recipes', () => {
  test.each(ENGINES)('%s carries the credential, the catalog and the warehouse', (engine) => {
    const r = recipeFor(engine, facts);
    expect(r).toContain('t-abc');
    expect(r).toContain('cs_se');
    expect(r).toContain('http://catalog.example:8181');
    expect(r).toContain('wh-123');
  });

  test('duckdb: an ICEBERG secret with the token endpoint, ATTACH with the endpoint, quotes escaped', () => {
    const r = recipeFor('duckdb', facts);
    expect(r).toContain("OAUTH2_SERVER_URI 'http://catalog.example:8181/v1/oauth/tokens'");
    expect(r).toContain("CLIENT_SECRET 'cs_se''cret'");
    expect(r).toMatch(/ATTACH 'wh-123' AS lake \(\s+TYPE ICEBERG,\s+SECRET lake_catalog,\s+ENDPOINT 'http:\/\/catalog.example:8181'/);
  });

  test('pyiceberg and spark: rest catalog, credential as id:secret, path-style S3 at the endpoint, vended credentials', () => {
    const py = recipeFor('pyiceberg', facts);
    expect(py).toContain('"credential": "t-abc:cs_se\'cret"');
    expect(py).toContain('"s3.endpoint": "http://s3.example:7480"');
    expect(py).toContain('"s3.path-style-access": "true"');
    expect(py).toContain('"header.X-Iceberg-Access-Delegation": "vended-credentials"');
    const spark = recipeFor('spark', facts);
    expect(spark).toContain('spark.sql.catalog.lake.type=rest');
    expect(spark).toContain('spark.sql.catalog.lake.s3.path-style-access=true');
    expect(spark).toContain('spark.sql.catalog.lake.s3.endpoint=http://s3.example:7480');
    expect(spark).toContain('spark.sql.catalog.lake.credential=t-abc:');
  });

  test('snowflake: a catalog integration with OAuth client credentials at the token endpoint', () => {
    const r = recipeFor('snowflake', facts);
    expect(r).toContain('CATALOG_SOURCE = ICEBERG_REST');
    expect(r).toContain("OAUTH_TOKEN_URI = 'http://catalog.example:8181/v1/oauth/tokens'");
    expect(r).toContain("OAUTH_CLIENT_ID = 't-abc'");
  });
});
