"use server";
// What a floor change would do, for the confirmation every floor save goes through. Reads
// only; the save itself goes through PUT /api/v1/policies/{class} like any other client.
import { z } from "zod";
import type { CompressionPolicy } from "@/lib/guard/guard";
import { getPolicy } from "@/db/queries/policies";
import { getClassChains } from "@/db/queries/recommendation";
import { replayClass } from "@/db/queries/what-if";
import { type FloorPreview, outcomeOf, profileChains } from "@/lib/recommend";
import { contentClassSchema } from "@/lib/schemas/common";
import { summariseWhatIf } from "@/lib/chains/what-if";
import { serverAction } from "@/app/_access/server-action";

const floorSchema = z.object({
  min_size_bytes: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  min_semantic_density: z.number().min(0).max(1),
  max_pass_number: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
});

// A viewer may preview (it reads only), like every other read of the policies page.
export const previewFloorChange = serverAction(
  "read",
  async (_principal, contentClass: string, floor: CompressionPolicy): Promise<FloorPreview> => {
    const cls = contentClassSchema.safeParse(contentClass);
    const proposed = floorSchema.safeParse(floor);
    if (!cls.success || !proposed.success) return { ok: false, message: "That floor is not valid." };
    const [policy, chains] = await Promise.all([getPolicy(cls.data), getClassChains(cls.data)]);
    const profile = profileChains(chains);
    const replayed = await replayClass(cls.data, policy, proposed.data);
    return {
      ok: true,
      chains: profile.chains,
      failures: profile.failures,
      healthy: profile.healthy,
      guarded: profile.guarded,
      inForce: outcomeOf(profile, policy),
      proposed: outcomeOf(profile, proposed.data),
      movements: summariseWhatIf(replayed, 0).counts,
    };
  },
);
