import type { Metadata } from "next";
import { headers } from "next/headers";
import { firstAdminOfferFor } from "@/app/_access/first-admin";
import { pageNeedsCredential, requirePage } from "@/app/_access/page-access";
import { FIRST_OPERATOR_COMMAND, safeNextPath } from "@/lib/auth/access";
import { MIN_PASSWORD_LENGTH } from "@/lib/auth/credentials";
import { firstValues, type RawSearchParams } from "@/lib/url-state";
import { FirstAdminForm } from "@/components/access/first-admin-form";
import { SignInForm } from "@/components/access/sign-in-form";
import { operatorsExist } from "@/db/queries/access";
import { createFirstAdminOperator } from "./actions";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Sign in" };

export default async function SignInPage({ searchParams }: { searchParams: Promise<RawSearchParams> }) {
  const principal = await requirePage("/sign-in");
  const next = safeNextPath(firstValues(await searchParams).next);
  const on = await pageNeedsCredential();
  if (!on) {
    return (
      <>
        <h1>Sign in</h1>
        <p className="panel" data-testid="auth-off">
          Access control is off on this server (loopback, no keys or operators yet): every page is open.{" "}
          <a href={next}>Continue</a>.
        </p>
      </>
    );
  }
  if (principal.kind === "operator") {
    return (
      <>
        <h1>Sign in</h1>
        <p className="panel">
          You are signed in as {principal.name}. <a href={next}>Continue</a>.
        </p>
      </>
    );
  }
  const offer = await firstAdminOfferFor(await headers());
  if (offer) {
    return (
      <FirstAdminForm
        create={createFirstAdminOperator}
        needsToken={offer === "token"}
        minPassword={MIN_PASSWORD_LENGTH}
        next={next}
        intro={
          offer === "this-machine"
            ? "Access control is on and no operator exists yet, so no one can sign in. This browser is on the server's own machine: create the first admin operator here, then sign in with it."
            : "Access control is on and no operator exists yet, so no one can sign in. With the server's FLOORLINE_API_TOKEN you can create the first admin operator here, then sign in with it."
        }
        command={FIRST_OPERATOR_COMMAND}
      />
    );
  }
  return (
    <>
      <h1>Sign in</h1>
      <div className="first-admin">
        <SignInForm next={next} />
        {(await operatorsExist()) ? null : (
          <div className="panel" data-testid="no-operator">
            <p>
              No operator exists on this server yet, so no one can sign in here. Create the first one on the machine
              that runs the server: open this page in a browser there (when the server listens on loopback), or run,
              with the same <code>--data-dir</code> as the server (the CLI goes through a running server):
            </p>
            <pre>
              <code>{FIRST_OPERATOR_COMMAND}</code>
            </pre>
          </div>
        )}
      </div>
    </>
  );
}
