/** @social-harness/daemon: the daemon, for the command line and for tests. */
export { startDaemon, type DaemonConfig, type RunningDaemon } from "./daemon.js";
export type { TrustPolicy } from "./trust/trust.service.js";
export type { AppRouter } from "./owner/app-router.js";
export { readHistoryFile } from "./history/history-file.js";
export { FAULT_POINTS, type FaultPoint } from "./faults/faults.js";

export { loadIdentityKey } from "./identity/identity.js";
export {
  auditConversation,
  auditHistory,
  type AuditFault,
  type AuditKeys,
  type AuditRecord,
  type ConversationVerdict,
} from "./history/history-audit.js";
export {
  openDataDirHistory,
  readExportFile,
  readHistoryKeys,
  readKeysFile,
  type DataDirHistory,
  type UnreadableLine,
} from "./history/history-audit-sources.js";

// The firewall's policy engine, for the evaluation bench (bench/firewall/) and tools that judge a
// draft policy offline: the same schema and compiled checks the daemon runs.
export { compilePolicy, type Assessment, type CompiledPolicy } from "./firewall/engine.js";
export { describeIssues, readPolicy, type FirewallPolicy, type PolicyIssue } from "./firewall/policy.schema.js";
export { InboundClock } from "./firewall/rate.middleware.js";
export { compilePattern, testPattern, type LinearPattern } from "./firewall/linear-pattern.js";
export { checkBudget } from "./firewall/match.js";
export { answerText, type Subject } from "./firewall/subjects.js";

// The daemon's Prometheus metrics, for the Grafana dashboard's check (docker/) and operators' tools.
export { DaemonMetrics, type DaemonGauges } from "./metrics/daemon-metrics.js";
