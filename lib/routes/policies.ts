// The routes of floor policies and their recommendation.
import { defineRoute } from "../http/contract";
import { contentClassSchema } from "../schemas/common";
import {
  policyBodySchema,
  policyListQuerySchema,
  policyListSchema,
  policyWireSchema,
  policyWithVersionsSchema,
  recommendationSchema,
} from "../schemas/policies";

export const POLICY_ROUTES = {
  list: defineRoute("/api/v1/policies", {
    GET: {
      scope: "read",
      summary: "List the policies in force",
      tag: "Policies",
      query: policyListQuerySchema,
      responses: { 200: { description: "A page of policies and the default floor.", schema: policyListSchema } },
    },
  }),
  detail: defineRoute("/api/v1/policies/{content_class}", {
    GET: {
      scope: "read",
      summary: "The policy in force for a content class, with its versions",
      tag: "Policies",
      pathParams: { content_class: contentClassSchema },
      responses: {
        200: { description: "The policy (version 0: the default floor).", schema: policyWithVersionsSchema },
      },
      errors: [422],
    },
    PUT: {
      scope: "admin",
      summary: "Set a content class's floor (a new version)",
      tag: "Policies",
      pathParams: { content_class: contentClassSchema },
      body: policyBodySchema,
      responses: {
        200: { description: "Identical to the version in force; nothing written.", schema: policyWireSchema },
        201: { description: "A new version.", schema: policyWireSchema },
      },
    },
  }),
  recommendation: defineRoute("/api/v1/policies/{content_class}/recommendation", {
    GET: {
      scope: "read",
      summary: "Recommended floors for a content class, replayed over its recorded chains",
      description:
        "Each option is a floor with what it would have done to the class's recorded chains: failures caught and missed, healthy chains halted early, and the compression kept. Needs enough recorded chains: otherwise 422 `not_enough_data` with `chains` and `minimum`.",
      tag: "Policies",
      pathParams: { content_class: contentClassSchema },
      responses: { 200: { description: "The floor in force and the options.", schema: recommendationSchema } },
      errors: [422],
    },
  }),
};
