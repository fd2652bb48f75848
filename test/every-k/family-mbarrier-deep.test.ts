// The pipeline family lowered to mbarriers, D 5..6: K=any against every K in 1..32 (docs/checker.md,
// "A proof for every K").
import { describe } from 'vitest';
import { familyGrid } from './family.ts';

describe('the pipeline family at the mbarrier level, D 5..6', () => familyGrid('mbarrier', [5, 6]));
