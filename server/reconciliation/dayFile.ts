import { findEntityName } from '../merchants/repository.ts';
import { findSettlementBatches, recordsOfDay } from '../reports/settlementRecords.ts';
import type { Queryable } from '../store/index.ts';
import { reconciliationCsv, reconciliationFileName, type FileContext } from './format.ts';

/**
 * A merchant entity's reconciliation file of one settlement day, built from the store as it is read: the day's
 * settlement records a page at a time (recordsOfDay), formatted (format.ts) and encoded as UTF-8 chunks. Nothing
 * holds more than a page of records and a chunk of text, whatever the day's size. The same records give the same
 * bytes: an upload tried again, and an operator's download, send what the first attempt sent.
 */

/** Records read per statement: large enough that a million-record day is a few hundred statements. */
const RECORDS_PAGE = 2_000;

export interface DayFile {
  /** `<merchantEntityId>_<yyyyMMdd>.csv` */
  readonly name: string;
  /** The file's bytes, read from the store as they are consumed; read once. */
  readonly chunks: AsyncGenerator<Buffer>;
  /** Counted as the chunks are read: records written and bytes produced so far. */
  readonly counted: { readonly records: number; readonly bytes: number };
}

/** The file of `entityId` for `date` (yyyy-MM-dd); undefined when there is no such entity. */
export async function dayFile(db: Queryable, entityId: string, date: string, pspId: string): Promise<DayFile | undefined> {
  const entityName = await findEntityName(db, entityId);
  if (entityName === undefined) return undefined;
  const batches = await findSettlementBatches(db, entityId, { from: date, to: date });
  const context: FileContext = {
    entityId,
    entityName,
    pspId,
    batches: new Map(batches.map((batch) => [batch.id, { clearingInstitute: batch.clearingInstitute, createdAt: batch.createdAt }])),
  };
  const counted = { records: 0, bytes: 0 };
  async function* encoded(): AsyncGenerator<Buffer> {
    for await (const text of reconciliationCsv(recordsOfDay(db, entityId, date, RECORDS_PAGE), context, counted)) {
      const bytes = Buffer.from(text, 'utf8');
      counted.bytes += bytes.length;
      yield bytes;
    }
  }
  return { name: reconciliationFileName(entityId, date), chunks: encoded(), counted };
}
