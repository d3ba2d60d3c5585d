// The version `floe --version` prints and the User-Agent carries (so Floe can
// add `cli_outdated` to answers for an old client). Read from package.json,
// which sits one level above both src/ (workspace) and dist/ (published).
import { createRequire } from 'node:module';

export const CLI_VERSION: string = (createRequire(import.meta.url)('../package.json') as { version: string }).version;
