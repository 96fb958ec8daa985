import type { IgnoredParam } from "@/lib/url-state";

/** Says which URL values a page could not use, instead of dropping them silently. */
export function IgnoredParamsNotice({ ignored }: { ignored: readonly IgnoredParam[] }) {
  if (ignored.length === 0) return null;
  return (
    <div className="audit-notice" role="status" data-testid="ignored-params">
      <strong>
        {ignored.length === 1 ? "One value in the URL was ignored" : `${ignored.length} values in the URL were ignored`}
      </strong>
      : the list below does not apply {ignored.length === 1 ? "it" : "them"}.
      <ul>
        {ignored.map((i) => (
          <li key={i.key}>
            <code>
              {i.key}={i.value}
            </code>{" "}
            — {i.message}
          </li>
        ))}
      </ul>
    </div>
  );
}
