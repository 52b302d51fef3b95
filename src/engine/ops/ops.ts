import type { HandlerMap } from './op-handler';
import { threadOps } from './ops-threads';
import { turnOps } from './ops-turns';
import { runOps } from './ops-runs';
import { settingsOps } from './ops-settings';
import { workflowOps } from './ops-workflows';
import { workflowRunOps } from './ops-workflow-runs';
import { recordingOps } from './ops-recording';
import { secretOps } from './ops-secrets';
import { handOverOps } from './ops-hand-over';
import { bridgeOps } from './ops-bridge';

export type { Handler, HandlerMap, HandlerResult, OpContext } from './op-handler';
export { done } from './op-handler';

/** Every op type's handler. */
export const handlers: HandlerMap = {
  ...threadOps,
  ...turnOps,
  ...runOps,
  ...settingsOps,
  ...workflowOps,
  ...workflowRunOps,
  ...recordingOps,
  ...secretOps,
  ...handOverOps,
  ...bridgeOps,
};
