import { statementImport, statementImportProfile, statementImportRow } from '@nestegg/db';
import { and, eq } from 'drizzle-orm';
import { registerOwnedResource } from '../../../test/ownership/registry.js';

let made = 0;

const statement = () => {
  made += 1;
  const text = `이용일자,가맹점명,이용금액\r\n2026-05-${String((made % 27) + 1).padStart(2, '0')},소유 확인 ${made},"1,000"\r\n`;
  return { bytes: Buffer.from(text), fileName: `owned-${made}.csv` };
};

/** A member's statement import (a preview): read, its rows listed, adjusted, committed, undone and discarded by id. */
registerOwnedResource({
  name: 'statement import',
  routes: [
    'ledger.imports.get',
    'ledger.imports.rows',
    'ledger.imports.adjust',
    'ledger.imports.commit',
    'ledger.imports.undo',
    'ledger.imports.discard',
  ],
  async make(app, owner) {
    const caller = { memberId: owner.id, plan: 'PREMIUM' as const, isAdmin: false };
    return (await app.services.statementImports.upload(caller, statement())).id;
  },
  snapshot: async (app, id) => ({
    statement: await app.db
      .select({ status: statementImport.status, settings: statementImport.settings, counts: statementImport.counts })
      .from(statementImport)
      .where(eq(statementImport.id, Number(id))),
    rows: await app.db
      .select()
      .from(statementImportRow)
      .where(eq(statementImportRow.importId, Number(id))),
  }),
});

/** A member's saved mapping: deleted by id. */
registerOwnedResource({
  name: 'statement import profile',
  routes: ['ledger.imports.deleteProfile'],
  async make(app, owner) {
    made += 1;
    const [profile] = await app.db
      .insert(statementImportProfile)
      .values({ memberId: owner.id, name: `Owned profile ${made}`, shapeKey: `owned-${made}`, settings: {} })
      .returning({ id: statementImportProfile.id });
    return profile!.id;
  },
  snapshot: async (app, id) =>
    app.db
      .select()
      .from(statementImportProfile)
      .where(and(eq(statementImportProfile.id, Number(id)))),
});
