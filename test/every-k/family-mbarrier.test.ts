// The pipeline family lowered to mbarriers, D 1..4: K=any against every K in 1..32 (docs/checker.md,
// "A proof for every K"). D 5..6 are in family-mbarrier-deep.test.ts, so the two run side by side.
import { describe } from 'vitest';
import { familyGrid } from './family.ts';

describe('the pipeline family at the mbarrier level, D 1..4', () => familyGrid('mbarrier', [1, 2, 3, 4]));
