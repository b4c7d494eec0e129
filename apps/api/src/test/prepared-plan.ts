import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';

/** One node of `explain (format json)`. */
export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

export interface PreparedPlan {
  /** How often Postgres planned the statement for its values, and how often it ran the generic plan. */
  customPlans: number;
  genericPlans: number;
  /** Every node of the plan it ran last. */
  nodes: PlanNode[];
}

/** A value as an SQL literal, for `execute name(…)` (the values are the test's own). */
const literal = (value: unknown) => (typeof value === 'string' ? `'${value.replaceAll("'", "''")}'` : String(value));

/**
 * A statement prepared as the api prepares it and run ten times with `parameters`: whether Postgres settles
 * on its generic plan (no planning per call), and the plan it runs then.
 */
export async function runPrepared(app: FastifyInstance, text: string, parameters: unknown[]): Promise<PreparedPlan> {
  const values = parameters.map(literal).join(', ');
  return app.db.transaction(async (tx) => {
    await tx.execute(sql.raw(`prepare plan_test as ${text}`));
    for (let run = 0; run < 10; run += 1) await tx.execute(sql.raw(`execute plan_test(${values})`));
    const [counts] = await tx.execute<{ custom: number; generic: number }>(sql`
      select custom_plans::int as custom, generic_plans::int as generic from pg_prepared_statements
       where name = 'plan_test'`);
    const [explained] = await tx.execute<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
      sql.raw(`explain (format json) execute plan_test(${values})`),
    );
    await tx.execute(sql.raw('deallocate plan_test'));
    const walk = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(walk)];
    return {
      customPlans: counts!.custom,
      genericPlans: counts!.generic,
      nodes: walk(explained!['QUERY PLAN'][0].Plan),
    };
  });
}

/** The tables a plan reads, with how (`Index Scan on post via post_pkey`). */
export const readsOf = (nodes: PlanNode[]) =>
  nodes
    .filter((node) => node['Relation Name'] !== undefined)
    .map(
      (node) =>
        `${node['Node Type']} on ${node['Relation Name']}${node['Index Name'] ? ` via ${node['Index Name']}` : ''}`,
    );

/**
 * The estimated total cost of the statement's custom plan (planned for `parameters`) and of its generic plan
 * (planned without them): equal when the values cannot steer the planner, so the generic plan is kept.
 */
export async function planCosts(
  app: FastifyInstance,
  text: string,
  parameters: unknown[],
): Promise<{ custom: number; generic: number }> {
  const values = parameters.map(literal).join(', ');
  return app.db.transaction(async (tx) => {
    await tx.execute(sql.raw(`prepare cost_test as ${text}`));
    const costWith = async (mode: 'force_custom_plan' | 'force_generic_plan') => {
      await tx.execute(sql.raw(`set local plan_cache_mode = ${mode}`));
      const [explained] = await tx.execute<{ 'QUERY PLAN': [{ Plan: { 'Total Cost': number } }] }>(
        sql.raw(`explain (format json) execute cost_test(${values})`),
      );
      return explained!['QUERY PLAN'][0].Plan['Total Cost'];
    };
    const costs = { custom: await costWith('force_custom_plan'), generic: await costWith('force_generic_plan') };
    await tx.execute(sql.raw('deallocate cost_test'));
    return costs;
  });
}
