import { appAndAbroadEntries } from './apps-and-abroad.fixture';
import { cbmaxEntries } from './cbmax.fixture';
import type { CorpusEntry } from './entries.fixture';
import { ignoredEntries } from './ignored.fixture';
import { kakaoEntries } from './kakao.fixture';
import { projectEntries } from './projects.fixture';
import { structureEntries } from './structures.fixture';
import { wyvernyEntries } from './wyverny.fixture';

export type { Channel, CorpusEntry } from './entries.fixture';

/** Every corpus text with its expected parse. Add a text to the file of its source (see README.md). */
export const CORPUS: readonly CorpusEntry[] = [
  ...kakaoEntries,
  ...cbmaxEntries,
  ...wyvernyEntries,
  ...projectEntries,
  ...appAndAbroadEntries,
  ...structureEntries,
  ...ignoredEntries,
];
