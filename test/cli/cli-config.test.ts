// The `spoor` binary against a running server: API keys, channels, webhooks, schedules and alerts,
// each as a user would run them (JSON when piped, tables on a terminal) and as they fail (exit 1
// with the server's words on stderr, exit 2 for a wrong command line). Embedded mode only: what
// is checked here is what the CLI sends and prints; the server's side of each of these routes is
// checked on both engines by test/e2e/outbound-flow.test.ts (channels, digests, webhooks,
// schedules, alerts), gateway-flow.test.ts and auth-hardening.test.ts (API keys).
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { requireEngine } from '@spoor/testkit';
import { ApiClient } from '../support/api-client.js';
import { cliUser, type CliUser } from '../support/cli-runner.js';
import { failed, ok } from '../support/cli-assertions.js';
import { startHttpReceiver, type HttpReceiver } from '../support/http-receiver.js';
import { startSpoor, type Harness } from '../support/spoor-harness.js';

let nextPort = 4700;

describe('CLI: spoor apikey, channels, webhooks, schedules, alerts: embedded', function () {
  this.timeout(120_000);
  let spoor: Harness;
  let receiver: HttpReceiver;

  /** A new account with its own local (so verified) project, chosen with `spoor use`. */
  async function newUser(): Promise<
    CliUser & { email: string; api: ApiClient; scope: { origin: string; project: string } }
  > {
    const user = await cliUser(spoor.url);
    const email = `cli-${randomUUID().slice(0, 8)}@example.com`;
    const origin = `http://localhost:${nextPort++}`;
    ok(await user.run(['signup', email], { env: { SPOOR_PASSWORD: 'long enough pw' } }));
    expect(ok(await user.run(['projects', 'add', origin, 'cli/web']))).to.include({
      origin,
      project: 'cli/web',
      verified: true,
    });
    ok(await user.run(['use', origin, 'cli/web']));
    // The same account over plain HTTP, to read what the server itself says.
    const { token } = JSON.parse(await readFile(join(user.configDir, 'auth.json'), 'utf8')) as { token: string };
    return Object.assign(user, {
      email,
      api: new ApiClient(spoor.url, token),
      scope: { origin, project: 'cli/web' },
    });
  }

  before(async function () {
    receiver = await startHttpReceiver();
    const started = await startSpoor('embedded', { SPOOR_WEBHOOK_ALLOW_PRIVATE: '1' });
    requireEngine(this, started ? 'ok' : null, 'engines for embedded mode');
    spoor = started!;
  });
  after(async () => {
    await spoor?.stop();
    await receiver?.close();
  });

  it('apikey: shows the secret once, lists names only, and the key works as SPOOR_TOKEN until deleted', async () => {
    const user = await newUser();
    const created = ok(await user.run(['apikey', 'create', 'ci-key']));
    expect(created.api_key_name).to.equal('ci-key');
    expect(created.api_key).to.be.a('string').with.length.greaterThan(20);
    const listed = await user.run(['apikey', 'list']);
    expect(ok(listed).api_keys.map((k: any) => k.api_key_name)).to.deep.equal(['ci-key']);
    expect(listed.stdout).to.not.contain(created.api_key);
    // A machine with no stored login: only the key speaks for the account.
    const ci = await cliUser(spoor.url);
    expect(ok(await ci.run(['whoami'], { env: { SPOOR_TOKEN: created.api_key } }))).to.include({
      email: user.email,
      url: spoor.url,
    });
    ok(await user.run(['apikey', 'delete', 'ci-key']));
    expect(ok(await user.run(['apikey', 'list'])).api_keys).to.deep.equal([]);
    const refused = failed(await ci.run(['whoami'], { env: { SPOOR_TOKEN: created.api_key } }), 1);
    expect(refused).to.match(/^error: the server refused your credentials \(.+\); run `spoor login <email>` again\n$/);
  });

  it("apikey: exits 1 with the server's reason for an unknown key and a bad name", async () => {
    const user = await newUser();
    const server = await user.api.delete('/v1/users/apikey/no-such-key');
    expect(server.status).to.equal(404);
    expect(failed(await user.run(['apikey', 'delete', 'no-such-key']), 1)).to.equal(`error: ${server.body.detail}\n`);
    expect(failed(await user.run(['apikey', 'create', 'bad/name']), 1)).to.match(/^error: body\.api_key_name: .+\n$/);
    expect(failed(await user.run(['apikey', 'create']), 2)).to.contain("missing required argument 'name'");
  });

  it('channels: adds email and chat channels, lists, gets and deletes them; a digest reaches the chat URL', async () => {
    const user = await newUser();
    const mail = ok(
      await user.run([
        'channels',
        'add',
        'team mail',
        '--kind',
        'email',
        '--recipients',
        'a@example.com, b@example.com',
      ]),
    );
    expect(mail).to.include({ name: 'team mail', kind: 'email' });
    expect(mail.recipients).to.deep.equal(['a@example.com', 'b@example.com']);
    // --url after the subcommand is the chat endpoint, not the Spoor server.
    const chat = ok(await user.run(['channels', 'add', 'chat', '--kind', 'slack', '--url', receiver.url]));
    expect(chat).to.include({ name: 'chat', kind: 'slack', url: receiver.url });
    const ids = ok(await user.run(['channels', 'list'])).channels.map((c: any) => c.channel_id);
    expect(ids).to.have.members([mail.channel_id, chat.channel_id]).and.have.length(2);
    expect(ok(await user.run(['channels', 'get', chat.channel_id]))).to.deep.equal(chat);
    const before = receiver.received.length;
    const job = ok(await user.run(['trigger', 'notification', '--channels', chat.channel_id, '--wait']));
    expect(job.status, job.error).to.equal('succeeded');
    const posted = receiver.received.slice(before);
    expect(posted).to.have.length(1);
    expect(JSON.parse(posted[0]!.body).text).to.match(/Spoor digest/);
    expect(ok(await user.run(['channels', 'delete', mail.channel_id])).channel_id).to.equal(mail.channel_id);
    expect(ok(await user.run(['channels', 'list'])).channels.map((c: any) => c.channel_id)).to.deep.equal([
      chat.channel_id,
    ]);
  });

  it("channels: exits 2 for a bad --kind, 1 with the server's reason for a bad body or an unknown id", async () => {
    const user = await newUser();
    expect(failed(await user.run(['channels', 'add', 'x', '--kind', 'fax']), 2)).to.contain(
      '--kind is email, slack, discord or mattermost',
    );
    expect(failed(await user.run(['channels', 'add', 'x']), 2)).to.contain(
      "required option '--kind <kind>' not specified",
    );
    expect(failed(await user.run(['channels', 'add', 'x', '--kind', 'email']), 1)).to.match(
      /^error: body\.recipients: .+\n$/,
    );
    const unknown = randomUUID();
    const server = await user.api.get(`/v1/channels/${unknown}`, user.scope);
    expect(server.status).to.equal(404);
    const detail = server.body.detail as string;
    expect(failed(await user.run(['channels', 'get', unknown]), 1)).to.equal(`error: ${detail}\n`);
    expect(failed(await user.run(['channels', 'delete', unknown]), 1)).to.equal(`error: ${detail}\n`);
  });

  it('webhooks: add prints the secret once; list, get, deliveries, enable and delete', async () => {
    const user = await newUser();
    const hook = ok(
      await user.run([
        'webhooks',
        'add',
        receiver.url,
        '--events',
        'rule.matched,threshold.crossed',
        '--description',
        'ops',
      ]),
    );
    expect(hook.secret).to.match(/^whsec_/);
    expect(hook).to.include({ url: receiver.url, description: 'ops', enabled: true });
    expect(hook.events).to.deep.equal(['rule.matched', 'threshold.crossed']);
    for (const args of [
      ['webhooks', 'list'],
      ['webhooks', 'get', hook.webhook_id],
    ]) {
      const r = await user.run(args);
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stdout, args.join(' ')).to.not.contain(hook.secret);
    }
    expect(ok(await user.run(['webhooks', 'list'])).webhooks.map((w: any) => w.webhook_id)).to.deep.equal([
      hook.webhook_id,
    ]);
    expect(ok(await user.run(['webhooks', 'get', hook.webhook_id]))).to.not.have.property('secret');
    expect(ok(await user.run(['webhooks', 'deliveries', hook.webhook_id]))).to.deep.equal({ deliveries: [] });
    expect(ok(await user.run(['webhooks', 'enable', hook.webhook_id]))).to.include({
      webhook_id: hook.webhook_id,
      enabled: true,
    });
    ok(await user.run(['webhooks', 'delete', hook.webhook_id]));
    expect(ok(await user.run(['webhooks', 'list'])).webhooks).to.deep.equal([]);
    expect(failed(await user.run(['webhooks', 'get', hook.webhook_id]), 1)).to.match(/^error: .*not found\n$/i);
  });

  it('webhooks: a bad event type or URL is a 422, one line per field; no --events is a usage error', async () => {
    const user = await newUser();
    expect(failed(await user.run(['webhooks', 'add', receiver.url, '--events', 'rule.matched,bogus']), 1)).to.match(
      /^error: body\.events\.1: .*rule\.matched.*\n$/,
    );
    const lines = failed(await user.run(['webhooks', 'add', 'ftp://example.com/', '--events', 'bogus']), 1)
      .trimEnd()
      .split('\n');
    expect(lines).to.have.length(2);
    expect(lines.map((l) => l.replace(/: [^:]*$/, ''))).to.have.members(['error: body.url', 'error: body.events.0']);
    expect(failed(await user.run(['webhooks', 'add', receiver.url]), 2)).to.contain(
      "required option '--events <types>' not specified",
    );
    expect(failed(await user.run(['webhooks', 'deliveries', randomUUID()]), 1)).to.match(/^error: .*not found\n$/i);
  });

  it('schedules: add <kind> --every 1h, list, get, delete; bad durations and kinds are usage errors', async () => {
    const user = await newUser();
    const made = ok(await user.run(['schedules', 'add', 'aggregation', '--every', '1h']));
    expect(made).to.include({ kind: 'aggregation', interval_ms: 3_600_000, enabled: true, last_run_at: null });
    expect(made.next_run_at).to.be.greaterThan(made.created_at);
    expect(ok(await user.run(['schedules', 'list'])).schedules.map((s: any) => s.schedule_id)).to.deep.equal([
      made.schedule_id,
    ]);
    expect(ok(await user.run(['schedules', 'get', made.schedule_id]))).to.include({
      schedule_id: made.schedule_id,
      interval_ms: 3_600_000,
    });
    ok(await user.run(['schedules', 'delete', made.schedule_id]));
    expect(ok(await user.run(['schedules', 'list'])).schedules).to.deep.equal([]);
    expect(failed(await user.run(['schedules', 'get', made.schedule_id]), 1)).to.match(/^error: .*not found\n$/i);
    expect(failed(await user.run(['schedules', 'add', 'aggregation', '--every', '1x']), 2)).to.contain(
      'not a duration: "1x"',
    );
    expect(failed(await user.run(['schedules', 'add', 'bogus', '--every', '1h']), 2)).to.contain(
      '<kind> is aggregation, notification or transitions',
    );
    // A well-formed duration the server refuses: its 422, naming the field.
    expect(failed(await user.run(['schedules', 'add', 'aggregation', '--every', '1s']), 1)).to.match(
      /^error: body\.interval_ms: .+\n$/,
    );
  });

  it('alerts: --tag/--threshold/--window, --absent, --rule; exactly one condition or exit 2', async () => {
    const user = await newUser();
    const tag = ok(await user.run(['alerts', 'add', 'busy', '--tag', 'x', '--threshold', '3', '--window', '1h']));
    expect(tag.condition).to.deep.equal({ type: 'tag_count', tag: 'x', threshold: 3, window_ms: 3_600_000 });
    const absent = ok(await user.run(['alerts', 'add', 'quiet', '--absent', 'signup', '--window', '15m']));
    expect(absent.condition).to.deep.equal({ type: 'action_absent', action: 'signup', window_ms: 900_000 });
    const rule = ok(await user.run(['alerts', 'add', 'matched', '--rule', 'busy']));
    expect(rule.condition).to.deep.equal({ type: 'rule_match', rule_id: 'busy' });
    const ids = () => user.run(['alerts', 'list']).then((r) => ok(r).alerts.map((a: any) => a.alert_id));
    expect(await ids())
      .to.have.members([tag.alert_id, absent.alert_id, rule.alert_id])
      .and.have.length(3);
    ok(await user.run(['alerts', 'delete', absent.alert_id]));
    expect(await ids())
      .to.have.members([tag.alert_id, rule.alert_id])
      .and.have.length(2);
    expect(failed(await user.run(['alerts', 'delete', absent.alert_id]), 1)).to.match(/^error: .*not found\n$/i);
    const oneCondition = /give one condition/;
    expect(failed(await user.run(['alerts', 'add', 'none']), 2)).to.match(oneCondition);
    expect(
      failed(
        await user.run(['alerts', 'add', 'two', '--tag', 'x', '--threshold', '3', '--window', '1h', '--rule', 'busy']),
        2,
      ),
    ).to.match(oneCondition);
    expect(failed(await user.run(['alerts', 'add', 'no window', '--absent', 'signup']), 2)).to.contain(
      '--window is required',
    );
    expect(
      failed(await user.run(['alerts', 'add', 'bad window', '--absent', 'signup', '--window', 'soon']), 2),
    ).to.contain('not a duration');
    expect(await ids()).to.have.length(2);
  });

  it('prints a list as an aligned table with capital headers on a terminal', async () => {
    const user = await newUser();
    expect((await user.tty(['channels', 'list'])).stdout.trim()).to.equal('(none)');
    const mail = ok(await user.run(['channels', 'add', 'mail', '--kind', 'email', '--recipients', 'a@example.com']));
    const shown = await user.tty(['channels', 'list']);
    expect(shown.code, shown.stdout).to.equal(0);
    const [header, row, ...rest] = shown.stdout.split(/\r?\n/).filter(Boolean);
    expect(rest).to.deep.equal([]);
    expect(header).to.match(/^CHANNEL_ID +NAME +KIND +RECIPIENTS +URL +CREATED_AT$/);
    expect(row).to.match(
      new RegExp(`^${mail.channel_id} +mail +email +a@example\\.com +- +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d$`),
    );
    // Every column starts where its header does.
    for (const [head, value] of [
      ['NAME', 'mail'],
      ['KIND', 'email'],
      ['RECIPIENTS', 'a@example.com'],
    ]) {
      expect(row!.indexOf(` ${value} `) + 1, head).to.equal(header!.indexOf(head!));
    }
  });
});
