// The per-project settings of issue 17 (retention_days, ip_policy), read back the same in both engines.
import { IP_POLICIES, type IpPolicy, type ProjectSettings } from '@spoor/schemas';
import { toInt } from './column-values.js';

/** NULL columns (a project made before the settings existed) read as null: keep forever, follow SPOOR_IP_MODE. */
export function settingsOf(r: Record<string, unknown>): Required<ProjectSettings> {
  const days = r.retention_days;
  const policy = r.ip_policy;
  return {
    retention_days: days === null || days === undefined ? null : toInt(days),
    ip_policy:
      typeof policy === 'string' && (IP_POLICIES as readonly string[]).includes(policy) ? (policy as IpPolicy) : null,
  };
}

/** The stored settings after a change: a field left out keeps its value. */
export function mergeSettings(current: Record<string, unknown>, change: ProjectSettings): Required<ProjectSettings> {
  const now = settingsOf(current);
  return {
    retention_days: change.retention_days === undefined ? now.retention_days : change.retention_days,
    ip_policy: change.ip_policy === undefined ? now.ip_policy : change.ip_policy,
  };
}
