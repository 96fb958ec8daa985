export default function OriginalNotFound() {
  return (
    <>
      <h1>No such original</h1>
      <p className="subtitle">
        Nothing was ever stored under this key (an evicted or expired original would still show its tombstone here).
        Keys are the sha256 of the original, or a prefix of at least 12 hex characters.
      </p>
      <p>
        <a href="/originals">Browse stored originals</a>
      </p>
    </>
  );
}
