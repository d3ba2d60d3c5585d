import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { loadConfig } from '@floe/config';
import { RgwStorage, type StoreCredentials } from '@floe/storage';

const run = promisify(execFile);

/** The provider as the admin user of the running RGW (scripts/test.ts starts it and sets FLOE_S3_*). */
export function adminStorage(): RgwStorage {
  const { s3 } = loadConfig();
  if (!s3.adminAccessKey || !s3.adminSecretKey) throw new Error('FLOE_S3_ADMIN_* unset: run through `npm test`, which starts Ceph RGW');
  return new RgwStorage({ endpoint: s3.endpoint, region: s3.region, adminAccessKey: s3.adminAccessKey, adminSecretKey: s3.adminSecretKey });
}

export function storeEndpoint(): { endpoint: string; region: string } {
  const { s3 } = loadConfig();
  return { endpoint: s3.endpoint, region: s3.region };
}

function credentialEnv(c: StoreCredentials): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: '/usr/bin:/bin',
    HOME: '/tmp',
    AWS_ACCESS_KEY_ID: c.accessKeyId,
    AWS_SECRET_ACCESS_KEY: c.secretAccessKey,
    AWS_DEFAULT_REGION: storeEndpoint().region,
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_CONFIG_FILE: '/dev/null',
    AWS_SHARED_CREDENTIALS_FILE: '/dev/null',
  };
  if (c.sessionToken) env.AWS_SESSION_TOKEN = c.sessionToken;
  return env;
}

/**
 * Debian's aws CLI (/usr/bin/aws) with the given credentials; never throws.
 * Returns the exit code, the output and the HTTP status the store answered
 * last (read from --debug: this CLI build crashes on RGW's empty <Message/>
 * instead of printing the error code, but the exchange itself is logged).
 */
export async function awsCli(c: StoreCredentials, args: string[], endpoint = storeEndpoint().endpoint): Promise<{ code: number; out: string; status: number | null; errorCode: string | null }> {
  let code = 0;
  let out = '';
  try {
    const { stdout, stderr } = await run('/usr/bin/aws', ['--debug', '--endpoint-url', endpoint, ...args], { env: credentialEnv(c), timeout: 60_000 });
    out = stdout + stderr;
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    code = typeof e.code === 'number' ? e.code : 1;
    out = `${e.stdout ?? ''}${e.stderr ?? ''}`;
  }
  const statuses = [...out.matchAll(/urllib3\.connectionpool - DEBUG - http:\/\/[^"]+"[A-Z]+ [^"]+ HTTP\/1\.1" (\d{3})/g)].map((m) => Number(m[1]));
  const errorCodes = [...out.matchAll(/<Code>(\w+)<\/Code>/g)].map((m) => m[1]);
  return { code, out, status: statuses.length ? statuses[statuses.length - 1] : null, errorCode: errorCodes.length ? errorCodes[errorCodes.length - 1] : null };
}

/**
 * Debian's boto3 (/usr/bin/python3) running a short script with an `s3` client in scope; prints JSON.
 * `code(f)` gives "ok" or the HTTP status of the refusal, `err(f)` "ok" or the store's error code.
 */
export async function boto3(c: StoreCredentials, body: string, endpoint = storeEndpoint().endpoint): Promise<unknown> {
  const script = [
    'import boto3, json, sys',
    'from botocore.config import Config',
    'from botocore.exceptions import ClientError',
    `s3 = boto3.client('s3', endpoint_url=${JSON.stringify(endpoint)}, config=Config(s3={'addressing_style': 'path'}, retries={'max_attempts': 1}))`,
    'def code(f):',
    '    try:',
    '        f()',
    '        return "ok"',
    '    except ClientError as e:',
    '        return str(e.response["ResponseMetadata"]["HTTPStatusCode"])',
    'def err(f):',
    '    try:',
    '        f()',
    '        return "ok"',
    '    except ClientError as e:',
    '        return e.response["Error"]["Code"]',
    body,
  ].join('\n');
  const { stdout } = await run('/usr/bin/python3', ['-c', script], { env: credentialEnv(c), timeout: 60_000 });
  return JSON.parse(stdout);
}
