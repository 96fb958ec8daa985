/** Whether the client's own residual digest agreed with the server's recomputation. */
export function DigestBadge({ mismatch, clientDigest }: { mismatch: boolean; clientDigest: string | null }) {
  if (mismatch) {
    return (
      <span
        className="badge danger"
        data-testid="digest-status"
        data-status="mismatch"
        title="The client's residual_digest differs from the server's"
      >
        digest differs
      </span>
    );
  }
  if (clientDigest === null) {
    return (
      <span
        className="badge neutral"
        data-testid="digest-status"
        data-status="absent"
        title="The client sent no residual_digest to compare"
      >
        not sent
      </span>
    );
  }
  return (
    <span
      className="badge safe"
      data-testid="digest-status"
      data-status="match"
      title="The client's residual_digest equals the server's"
    >
      client digest matches
    </span>
  );
}
