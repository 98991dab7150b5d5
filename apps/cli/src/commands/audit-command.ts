import { Option, type Command } from 'commander';
import type { components, paths } from '@spoor/client';
import { unwrap } from '../api-result.js';
import { act, intOption, type SessionFactory } from '../command-action.js';
import type { CliOutput, Column } from '../cli-output.js';
import { windowQuery, withWindow, type WindowOptions } from './window-options.js';

// `spoor audit` (issue 45, item 7; docs/cli.md, docs/security.md, Audit trail): the project's
// audit trail, newest first, for its owners and admins.
type AuditEntry = components['schemas']['AuditEntry'];
type AuditQuery = NonNullable<paths['/v1/projects/audit']['get']['parameters']['query']>;
type AuditAction = NonNullable<AuditQuery['action']>;

interface AuditOptions extends WindowOptions {
  action?: AuditAction;
  actor?: string;
  limit: number;
  all?: boolean;
}

/** A change as `field: before → after`, each value as compact JSON ('-' for none). */
export function describeChanges(changes: AuditEntry['changes']): string {
  const shown = (v: unknown) => (v === null || v === undefined ? '-' : typeof v === 'string' ? v : JSON.stringify(v));
  return (
    Object.entries(changes)
      .map(([field, c]) => `${field}: ${shown(c.before)} → ${shown(c.after)}`)
      .join('; ') || '-'
  );
}

const who = (e: AuditEntry) =>
  `${e.actor.email ?? e.actor.account_id}${e.actor.via === 'api_key' ? ` (key ${e.actor.api_key_name ?? '?'})` : ''}`;

/** The entry's time as the other tables show times (local, or UTC with --utc). */
const columns = (out: CliOutput): Array<Column<AuditEntry>> => [
  { header: 'at', value: (e) => out.time(e.at) },
  { header: 'actor', value: who },
  { header: 'action', value: (e) => e.action },
  { header: 'target', value: (e) => `${e.target.kind} ${e.target.name ?? e.target.id}` },
  { header: 'changes', value: (e) => describeChanges(e.changes) },
];

export function registerAuditCommand(program: Command, make: SessionFactory): void {
  withWindow(
    program
      .command('audit')
      .description(
        "the project's audit trail, newest first: who changed members, roles, rules, channels, webhooks, settings and data (owners and admins)",
      ),
  )
    .addOption(new Option('--action <action>', 'one action (member.removed) or a category (member: every member.*)'))
    .option('--actor <who>', "only this account's changes: its email or account id")
    .option('--limit <n>', 'entries per page (1-500)', intOption('--limit'), 50)
    .option('--all', 'every page, not only the first')
    .action(
      act(make, async (s, o: AuditOptions) => {
        const client = await s.client();
        const scope = await s.scope();
        const entries: AuditEntry[] = [];
        let cursor: string | undefined;
        let next: string | null = null;
        do {
          const page = unwrap(
            await client.GET('/v1/projects/audit', {
              params: {
                query: {
                  ...scope,
                  ...windowQuery(o),
                  ...(o.action ? { action: o.action } : {}),
                  ...(o.actor ? { actor: o.actor } : {}),
                  limit: o.limit,
                  ...(cursor ? { cursor } : {}),
                },
              },
            }),
          );
          entries.push(...page.entries);
          next = page.next_cursor;
          cursor = next ?? undefined;
        } while (o.all && cursor);
        const data = { entries, next_cursor: next };
        s.out.result(data, () => {
          const more = next && !o.all ? '\n(more entries: --all shows every page)' : '';
          return `${s.out.table(entries, columns(s.out))}${more}`;
        });
      }),
    );
}
