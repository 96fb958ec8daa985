export default function ChainNotFound() {
  return (
    <div className="panel empty">
      <h1>No such chain</h1>
      <p>
        No receipts have been received for this chain id. Check the id, or find the chain in the{" "}
        <a href="/chains">list of chains</a>.
      </p>
    </div>
  );
}
