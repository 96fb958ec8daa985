"use server";
// The sign-in page's one action: the first admin operator, while none exists. Public as the
// page is; what it checks (this machine, or FLOORLINE_API_TOKEN) is in app/_access/first-admin.ts.
import { headers } from "next/headers";
import { createFirstAdmin } from "@/app/_access/first-admin";
import { serverAction } from "@/app/_access/server-action";

export const createFirstAdminOperator = serverAction("public", async (_principal, input: unknown) =>
  createFirstAdmin(await headers(), input),
);
