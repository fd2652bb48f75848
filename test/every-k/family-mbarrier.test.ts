// The pipeline family lowered to mbarriers: K=any against every K in 1..32 (docs/checker.md, "A proof for every K").
import { describe } from 'vitest';
import { familyGrid } from './family.ts';

describe('the pipeline family at the mbarrier level', () => familyGrid('mbarrier'));
