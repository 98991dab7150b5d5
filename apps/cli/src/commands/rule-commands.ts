import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { parse as parseYaml } from 'yaml';
import type { components } from '@spoor/client';
import { unwrap } from '../api-result.js';
import { CliError, UsageError } from '../cli-errors.js';
import { act, type SessionFactory } from '../command-action.js';
import { fields } from '../cli-output.js';

type Rule = components['schemas']['Rule'];
type CreateRule = components['schemas']['CreateRuleRequest'];

async function readText(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${path}: ${(err as Error).message}`);
  }
}

/** A rules file: YAML or JSON; a list of rules, a mapping with a `rules:` list, or one rule. */
function rulesOf(text: string, path: string): Array<Record<string, unknown>> {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new UsageError(`${path} is neither YAML nor JSON: ${(err as Error).message.split('\n')[0]}`);
  }
  const list = Array.isArray(doc)
    ? doc
    : Array.isArray((doc as { rules?: unknown })?.rules)
      ? (doc as { rules: unknown[] }).rules
      : [doc];
  if (!list.length || !list.every((r) => r && typeof r === 'object' && !Array.isArray(r)))
    throw new UsageError(`${path} holds no rules: expected a list of rules, a mapping with a rules: list, or one rule`);
  return list as Array<Record<string, unknown>>;
}

const ruleColumns = () => [
  ...fields<Rule>('rule_id', 'kind', 'version', 'enabled', 'tags'),
  { header: 'label', value: (r: Rule) => r.label },
  ...fields<Rule>('updated_at'),
];

export function registerRuleCommands(program: Command, make: SessionFactory): void {
  const rules = program
    .command('rules')
    .description('rules of the project: list, read, apply from a file, disable, test a file against sessions');
  rules
    .command('list', { isDefault: true })
    .description('every rule, enabled or not')
    .action(
      act(make, async (s) => {
        const data = unwrap(await (await s.client()).GET('/v1/rules', { params: { query: await s.scope() } }));
        s.out.result(data, () => s.out.table(data.rules, ruleColumns()));
      }),
    );
  rules
    .command('get')
    .description('one rule with its JSONLogic')
    .argument('<rule_id>')
    .action(
      act(make, async (s, id: string) => {
        const rule = unwrap(
          await (
            await s.client()
          ).GET('/v1/rules/{rule_id}', { params: { path: { rule_id: id }, query: await s.scope() } }),
        );
        s.out.result(rule, () => s.out.record(rule as unknown as Record<string, unknown>));
      }),
    );
  rules
    .command('versions')
    .description('every saved version of a rule, oldest first')
    .argument('<rule_id>')
    .action(
      act(make, async (s, id: string) => {
        const data = unwrap(
          await (
            await s.client()
          ).GET('/v1/rules/{rule_id}/versions', { params: { path: { rule_id: id }, query: await s.scope() } }),
        );
        s.out.result(data, () =>
          s.out.table(data.versions, [
            ...fields<Rule>('version', 'enabled', 'updated_at'),
            { header: 'logic', value: (r: Rule) => r.logic },
          ]),
        );
      }),
    );
  rules
    .command('apply')
    .description('create or update the rules of a YAML or JSON file (a list, a mapping with rules:, or one rule)')
    .argument('<file>')
    .action(
      act(make, async (s, file: string) => {
        const client = await s.client();
        const scope = await s.scope();
        const saved: Rule[] = [];
        for (const rule of rulesOf(await readText(file), file)) {
          try {
            saved.push(unwrap(await client.POST('/v1/rules', { body: { ...scope, ...rule } as CreateRule })));
          } catch (err) {
            if (!(err instanceof CliError)) throw err;
            // Which rule of the file was refused, before the server's words.
            const done = saved.length ? ` (${saved.map((r) => r.rule_id).join(', ')} saved before it)` : '';
            throw new CliError(
              `rule ${JSON.stringify(rule.rule_id ?? saved.length + 1)} was refused${done}:\n${err.message}`,
            );
          }
        }
        s.out.result({ rules: saved }, () => s.out.table(saved, ruleColumns()));
      }),
    );
  rules
    .command('disable')
    .description('disable a rule (it stays readable)')
    .argument('<rule_id>')
    .action(
      act(make, async (s, id: string) => {
        const rule = unwrap(
          await (
            await s.client()
          ).DELETE('/v1/rules/{rule_id}', { params: { path: { rule_id: id }, query: await s.scope() } }),
        );
        s.out.result(rule, () => `disabled ${rule.rule_id} (version ${rule.version})`);
      }),
    );
  rules
    .command('test')
    .description(
      'evaluate the rules of a YAML file against the sessions of a JSON file (a list, or {"sessions": […]}); writes nothing',
    )
    .argument('<rules_file>')
    .argument('<sessions_file>')
    .action(
      act(make, async (s, rulesFile: string, sessionsFile: string) => {
        const yaml = await readText(rulesFile);
        const text = await readText(sessionsFile);
        let doc: unknown;
        try {
          doc = JSON.parse(text);
        } catch (err) {
          throw new UsageError(`${sessionsFile} is not JSON: ${(err as Error).message}`);
        }
        const sessions = Array.isArray(doc) ? doc : (doc as { sessions?: unknown })?.sessions;
        if (!Array.isArray(sessions))
          throw new UsageError(`${sessionsFile} holds no sessions: expected a list or {"sessions": […]}`);
        const data = unwrap(
          await (
            await s.client()
          ).POST('/v1/rules/test', { body: { rules: yaml, sessions: sessions as Array<Record<string, unknown>> } }),
        );
        s.out.result(data, () =>
          s.out.table(data.results, [
            { header: 'session_id', value: (r) => r.session_id },
            { header: 'matched', value: (r) => r.matched },
            { header: 'labels', value: (r) => r.labels },
          ]),
        );
      }),
    );
}
