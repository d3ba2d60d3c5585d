import type { Express } from 'express';
import type { ControlPlaneDeps } from '../deps';

// Not built yet: see the control-plane issue.
export function mountOnboarding(_app: Express, _d: ControlPlaneDeps): void {}
