import type { Express } from 'express';
import type { ControlPlaneDeps } from '../deps';

// Not built yet: see the control-plane issue.
export function mountWarehouseActions(_app: Express, _d: ControlPlaneDeps): void {}
