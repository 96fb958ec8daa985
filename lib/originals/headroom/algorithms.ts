/** The key algorithms of Headroom's compressors; sha256 is Floorline's own key. */
export const HASH_ALGORITHMS = ["sha256", "md5", "blake3"] as const;
export type HashAlgorithm = (typeof HASH_ALGORITHMS)[number];
