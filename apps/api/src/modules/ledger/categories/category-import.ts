import { type CategoryImportResult, SORT_ORDER_MAX } from '@nestegg/contract';
import type { DbOrTx } from '@nestegg/db';
import { sql } from 'drizzle-orm';

/**
 * Copying the default categories into a member's categories, keeping the hierarchy. A default whose name
 * the member's categories of its type already have (at either level) is skipped; a default sub-category
 * goes under the member's top-level category named like its default parent (and is skipped when that
 * name is a sub-category of the member's). Copies go last in their group, in the defaults' order.
 * `ON CONFLICT DO NOTHING` on the name key keeps a concurrent writer from duplicating a name.
 */

type Counts = {
  total: number;
  imported: number;
};

/** The default top-level categories: one statement, counting the defaults and the copies. */
const copyTopLevel = (memberId: number) => sql`
  with source as (
    select d.id, d.name, d.type, d.sort_order from default_category d where d.parent_id is null
  ), fresh as (
    select s.* from source s
     where not exists (select 1 from category c where c.member_id = ${memberId}::int and c.type = s.type and c.name = s.name)
  ), inserted as (
    insert into category (member_id, name, type, parent_id, sort_order)
    select ${memberId}::int, f.name, f.type, null::int,
           least(coalesce((select max(c.sort_order)::bigint + 1 from category c
                      where c.member_id = ${memberId}::int and c.type = f.type and c.parent_id is null), 0)
           + row_number() over (partition by f.type order by f.sort_order, f.id) - 1, ${SORT_ORDER_MAX}::bigint)
      from fresh f
    on conflict (member_id, type, name) do nothing
    returning 1
  )
  select (select count(*) from source)::int as total, (select count(*) from inserted)::int as imported`;

/** The default sub-categories, under the member's top-level categories (those copied included). */
const copySubCategories = (memberId: number) => sql`
  with source as (
    select d.id, d.name, d.type, d.sort_order, p.name as parent_name
      from default_category d join default_category p on p.id = d.parent_id
  ), placed as (
    select s.id, s.name, s.type, s.sort_order, mp.id as parent_id
      from source s
      join category mp on mp.member_id = ${memberId}::int and mp.type = s.type and mp.name = s.parent_name
                      and mp.parent_id is null
     where not exists (select 1 from category c where c.member_id = ${memberId}::int and c.type = s.type and c.name = s.name)
  ), inserted as (
    insert into category (member_id, name, type, parent_id, sort_order)
    select ${memberId}::int, p.name, p.type, p.parent_id,
           least(coalesce((select max(c.sort_order)::bigint + 1 from category c
                      where c.member_id = ${memberId}::int and c.parent_id = p.parent_id), 0)
           + row_number() over (partition by p.parent_id order by p.sort_order, p.id) - 1, ${SORT_ORDER_MAX}::bigint)
      from placed p
    on conflict (member_id, type, name) do nothing
    returning 1
  )
  select (select count(*) from source)::int as total, (select count(*) from inserted)::int as imported`;

/** Copies the defaults (parents first, then children resolved by name); call it in a transaction. */
export async function importDefaultCategories(tx: DbOrTx, memberId: number): Promise<CategoryImportResult> {
  const [top] = await tx.execute<Counts>(copyTopLevel(memberId));
  const [sub] = await tx.execute<Counts>(copySubCategories(memberId));
  const total = (top?.total ?? 0) + (sub?.total ?? 0);
  const imported = (top?.imported ?? 0) + (sub?.imported ?? 0);
  return { imported, skipped: total - imported };
}
