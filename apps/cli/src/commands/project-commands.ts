import { InvalidArgumentError, type Command } from 'commander';
import { unwrap } from '../api-result.js';
import { CliError, UsageError } from '../cli-errors.js';
import { act, intOption, type SessionFactory } from '../command-action.js';
import { fields } from '../cli-output.js';
import type { CliSession } from '../cli-session.js';

type Verification = { type: string; name: string; value: string };

/** The DNS record to create, as a person types it into a DNS console. */
function dnsHint(v: Verification): string {
  return `create this DNS record to verify the domain, then run \`spoor projects verify\`:\n  ${v.name}  ${v.type}  "${v.value}"`;
}

const IP_POLICIES = ['full', 'truncate', 'hash'] as const;
type IpPolicy = (typeof IP_POLICIES)[number];

/**
 * `--days`: a whole number of days (the server checks 1-3650), or `keep` for no limit. `keep`
 * stays a word here: commander turns an option's parsed null into ''.
 */
function daysOption(value: string): number | 'keep' {
  if (value === 'keep') return 'keep';
  if (!/^\d+$/.test(value))
    throw new InvalidArgumentError(`--days must be a whole number of days or "keep", got ${JSON.stringify(value)}`);
  return Number(value);
}

function ipPolicyOption(value: string): IpPolicy {
  if (!(IP_POLICIES as readonly string[]).includes(value))
    throw new InvalidArgumentError(
      `--ip-policy must be one of ${IP_POLICIES.join(', ')}, got ${JSON.stringify(value)}`,
    );
  return value as IpPolicy;
}

interface RetentionOptions {
  days?: number | 'keep';
  ipPolicy?: IpPolicy;
}

async function setRetention(
  s: CliSession,
  origin: string | undefined,
  project: string | undefined,
  o: RetentionOptions,
): Promise<void> {
  if (o.days === undefined && o.ipPolicy === undefined)
    throw new UsageError('give --days <n|keep>, --ip-policy <policy> or both');
  const scope = origin && project ? { origin, project } : await s.scope();
  const body = {
    ...(o.days === undefined ? {} : { retention_days: o.days === 'keep' ? null : o.days }),
    ...(o.ipPolicy === undefined ? {} : { ip_policy: o.ipPolicy }),
  };
  const updated = unwrap(await (await s.client()).PATCH('/v1/projects', { params: { query: scope }, body }));
  const kept = updated.retention_days === null ? 'kept forever' : `kept ${updated.retention_days} days`;
  s.out.result(
    updated,
    () => `${updated.project} at ${updated.origin}: events and sessions ${kept}; IP stored: ${updated.ip_policy}`,
  );
}

async function verify(s: CliSession, origin: string | undefined, project: string | undefined): Promise<void> {
  const scope = origin && project ? { origin, project } : await s.scope();
  const result = unwrap(await (await s.client()).POST('/v1/users/projects/verify', { body: scope }));
  s.out.result(result, () =>
    result.verified
      ? `${result.origin} is verified`
      : `${result.origin} is not verified yet${result.reason ? `: ${result.reason}` : ''}\n${dnsHint(result.verification)}`,
  );
  if (!result.verified) throw new CliError('the domain is not verified yet');
}

export function registerProjectCommands(program: Command, make: SessionFactory): void {
  const projects = program
    .command('projects')
    .description('your projects: list, register, verify the domain, retention and IP policy, read overviews');
  projects
    .command('list', { isDefault: true })
    .description('every project your account is a member of, with your role')
    .action(
      act(make, async (s) => {
        const { projects: rows } = unwrap(await (await s.client()).GET('/v1/projects'));
        s.out.result({ projects: rows }, () =>
          s.out.table(
            rows,
            fields('origin', 'project', 'role', 'verified', 'created_at', 'retention_days', 'ip_policy'),
          ),
        );
      }),
    );
  projects
    .command('add')
    .description('register a project at an origin; prints the DNS record that proves the domain')
    .argument('<origin>', 'the site, e.g. https://acme.example')
    .argument('<project>', 'the project identifier, e.g. acme/web')
    .action(
      act(make, async (s, origin: string, project: string) => {
        const created = unwrap(await (await s.client()).POST('/v1/users/projects', { body: { origin, project } }));
        s.out.result(
          created,
          () =>
            `registered ${created.project} at ${created.origin}\n${created.verified ? 'the origin is local: verified already' : dnsHint(created.verification)}`,
        );
      }),
    );
  projects
    .command('verify')
    .description('look up the DNS record and mark the domain verified (raw events need it); exits 1 while it is not')
    .argument('[origin]', 'default: --origin or `spoor use`')
    .argument('[project]', 'default: --project or `spoor use`')
    .action(act(make, async (s, origin?: string, project?: string) => verify(s, origin, project)));
  projects
    .command('retention')
    .description(
      'how long events and sessions are kept (a daily pass deletes older ones) and what of the visitor IP is stored from now on',
    )
    .argument('[origin]', 'default: --origin or `spoor use`')
    .argument('[project]', 'default: --project or `spoor use`')
    .option('--days <n|keep>', 'days to keep events and sessions (1-3650), or keep: forever', daysOption)
    .option('--ip-policy <policy>', 'full, truncate (IPv4 /24, IPv6 /48) or hash (salted HMAC)', ipPolicyOption)
    .action(
      act(make, async (s, origin: string | undefined, project: string | undefined, o: RetentionOptions) =>
        setRetention(s, origin, project, o),
      ),
    );
  projects
    .command('overview')
    .description('the most recent stored overviews (digests) of the project')
    .option('--limit <n>', 'how many (1-100)', intOption('--limit'), 10)
    .action(
      act(make, async (s, o: { limit: number }) => {
        const data = unwrap(
          await (
            await s.client()
          ).GET('/v1/projects/overview', { params: { query: { ...(await s.scope()), limit: o.limit } } }),
        );
        s.out.result(data, () =>
          s.out.table(data.overviews, [
            ...fields<(typeof data.overviews)[number]>('window_start', 'window_end', 'events', 'sessions', 'visitors'),
            { header: 'bounce_rate', value: (r) => `${Math.round(r.bounce_rate * 100)}%` },
            { header: 'median_ms', value: (r) => r.duration_ms.p50 },
            { header: 'top_page', value: (r) => r.pages[0]?.name },
          ]),
        );
      }),
    );

  program
    .command('use')
    .description('set the origin and project that later commands use when --origin and --project are not given')
    .argument('<origin>', 'the site, e.g. https://acme.example')
    .argument('<project>', 'the project identifier, e.g. acme/web')
    .action(
      act(make, async (s, origin: string, project: string) => {
        await s.store.writeContext({ origin, project });
        s.out.result({ origin, project }, () => `using ${project} at ${origin}`);
      }),
    );

  program
    .command('transitions')
    .description('the latest transition matrix of the project (`spoor trigger transitions` computes one)')
    .action(
      act(make, async (s) => {
        const m = unwrap(await (await s.client()).GET('/v1/transitions', { params: { query: await s.scope() } }));
        s.out.result(
          m,
          () =>
            `${m.sessions} sessions, ${s.out.time(m.window_start)} to ${s.out.time(m.window_end)}\n${s.out.table(
              m.transitions,
              [
                ...fields<(typeof m.transitions)[number]>('from', 'to', 'count'),
                { header: 'probability', value: (r) => r.probability.toFixed(3) },
              ],
            )}`,
        );
      }),
    );
}
