// One small, valid `POST /api/v1/evaluate` item, for tests that need a batch of a given
// length or a starting point to change one field of. Never mutated: spread it to vary it.
export const SMALL_EVALUATE_ITEM = {
  pass: {
    pass_id: "p",
    pass_number: 2,
    current_content_hash: "",
    current_size_bytes: 10,
    is_parseable: true,
    schema_valid: true,
    semantic_density_score: 0.5,
  },
  policy: { min_size_bytes: 1, min_semantic_density: 0.2, max_pass_number: 4 },
} as const;
