// Server actions as an attacker (or a page) posts them: by the id Next.js gave the action in
// this build, which anyone who once loaded its page holds.
import { readFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";

/** The id of the server action exported as `exportedName`, from the build the tests run against. */
export function actionId(exportedName: string): string {
  const dist = process.env.NEXT_DIST_DIR || ".next";
  const manifest = JSON.parse(readFileSync(path.join(dist, "server", "server-reference-manifest.json"), "utf8"));
  const entry = Object.entries(manifest.node as Record<string, { exportedName: string }>).find(
    ([, v]) => v.exportedName === exportedName,
  );
  if (!entry) throw new Error(`no server action ${exportedName} in the build`);
  return entry[0];
}

/**
 * Posts an action to the page at `url` with `args`, as Next.js's client does, over node:http
 * so that any header goes out as given (fetch replaces a Host header with the URL's).
 */
export function postAction(
  url: string,
  id: string,
  args: unknown[],
  headers: Record<string, string> = {},
): Promise<Response> {
  const body = JSON.stringify(args);
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: "POST",
        headers: {
          "next-action": id,
          "content-type": "text/plain;charset=UTF-8",
          accept: "text/x-component",
          "content-length": Buffer.byteLength(body),
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const answer = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            if (value !== undefined) answer.set(name, Array.isArray(value) ? value.join(", ") : value);
          }
          resolve(new Response(Buffer.concat(chunks), { status: res.statusCode ?? 0, headers: answer }));
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}
