// How the lifter numbers shared-memory addresses: each CTA of a cluster has its own window, and
// `.shared::cluster` addresses (mapa) name a CTA's window by rank. A leaf module, so the warp
// interpreter and its instruction files can share it without importing each other.

/** Shared memory per CTA on sm_90 is 228 KiB; addresses past 2^22 in a CTA window are refused. */
export const CTA_WINDOW = 1 << 22;
/** `.shared::cluster` addresses (mapa): CLUSTER_BASE + rank × CTA_WINDOW + offset. */
export const CLUSTER_BASE = 1n << 28n;
