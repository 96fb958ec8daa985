import type { Metadata } from "next";
import { pageNeedsCredential, requirePage } from "@/app/_access/page-access";
import { safeNextPath } from "@/lib/auth/access";
import { firstValues, type RawSearchParams } from "@/lib/url-state";
import { SignInForm } from "@/components/access/sign-in-form";
import { operatorsExist } from "@/db/queries/access";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Sign in" };

export default async function SignInPage({ searchParams }: { searchParams: Promise<RawSearchParams> }) {
  const principal = await requirePage("/sign-in");
  const next = safeNextPath(firstValues(await searchParams).next);
  const on = await pageNeedsCredential();
  return (
    <>
      <h1>Sign in</h1>
      {!on ? (
        <p className="panel" data-testid="auth-off">
          Access control is off on this server (loopback, no keys or operators yet): every page is open.{" "}
          <a href={next}>Continue</a>.
        </p>
      ) : principal.kind === "operator" ? (
        <p className="panel">
          You are signed in as {principal.name}. <a href={next}>Continue</a>.
        </p>
      ) : (
        <>
          <SignInForm next={next} />
          {(await operatorsExist()) ? null : (
            <div className="panel" data-testid="no-operator">
              <p>
                No operator exists on this server yet, so no one can sign in here. On the machine that runs the server,
                create the first one (with the embedded database, stop the server first: one process per data folder):
              </p>
              <pre>
                <code>npm run floorline -- operators create --name admin --role admin</code>
              </pre>
            </div>
          )}
        </>
      )}
    </>
  );
}
