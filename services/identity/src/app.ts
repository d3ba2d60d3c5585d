import type { Express } from 'express';
import { clientAddressFor, createApp } from '@floe/http';
import type { IdentityDeps } from './deps';
import { mountApiKeys } from './routes/api-keys';
import { mountAuth } from './routes/auth';
import { mountDevice } from './routes/device';
import { mountDiscovery } from './routes/discovery';
import { mountInternal } from './routes/internal';
import { mountOAuth } from './routes/oauth';
import { mountOAuthConsent } from './routes/oauth-consent';
import { mountPasskeys } from './routes/passkeys';
import { mountProviderSignIn } from './routes/provider-sign-in';
import { mountSecondFactor } from './routes/second-factor';
import { mountSignup } from './routes/signup';
import { mountTokens } from './routes/tokens';

export function buildIdentityApp(d: IdentityDeps): Express {
  return createApp({
    service: 'identity',
    logger: d.logger,
    bodyLimitBytes: d.config.bodyLimitBytes,
    clientAddress: clientAddressFor(d.config, 'behind-gateway'),
    // The OAuth token and revocation endpoints take a form (RFC 6749) as well as JSON; every other body here is JSON.
    formBodyPaths: /^\/oauth\/(token|revoke)\/?$/,
    mount: (app) => {
      mountDiscovery(app, d);
      mountTokens(app, d);
      mountApiKeys(app, d);
      mountInternal(app, d);
      mountSignup(app, d);
      mountAuth(app, d);
      mountSecondFactor(app, d);
      mountPasskeys(app, d);
      mountProviderSignIn(app, d);
      mountDevice(app, d);
      mountOAuth(app, d);
      mountOAuthConsent(app, d);
    },
  });
}
