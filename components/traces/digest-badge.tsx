/** Whether the client's own residual digest agreed with the server's recomputation. */
export function DigestBadge({ mismatch, clientDigest }: { mismatch: boolean; clientDigest: string | null }) {
  if (mismatch) {
    return (
      <span className="badge danger" data-testid="digest-status" data-status="mismatch">
        client digest differs
      </span>
    );
  }
  if (clientDigest === null) {
    return (
      <span className="badge neutral" data-testid="digest-status" data-status="absent">
        no client digest
      </span>
    );
  }
  return (
    <span className="badge safe" data-testid="digest-status" data-status="match">
      client digest matches
    </span>
  );
}
