import { appAndAbroadEntries } from './apps-and-abroad';
import { cbmaxEntries } from './cbmax';
import type { CorpusEntry } from './entries.fixture';
import { ignoredEntries } from './ignored';
import { kakaoEntries } from './kakao';
import { projectEntries } from './projects';
import { structureEntries } from './structures';
import { wyvernyEntries } from './wyverny';

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
