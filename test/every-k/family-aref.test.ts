// The pipeline family at the aref level: K=any against every K in 1..32 (docs/checker.md, "A proof for every K").
import { describe } from 'vitest';
import { familyGrid } from './family.ts';

describe('the pipeline family at the aref level', () => familyGrid('aref', [1, 2, 3, 4, 5, 6]));
