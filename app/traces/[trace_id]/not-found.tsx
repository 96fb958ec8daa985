import Link from "next/link";

export default function TraceNotFound() {
  return (
    <>
      <h1>No such trace</h1>
      <p className="subtitle">
        No trace with that id has been stored. A submission refused for an unverified conclusion stores nothing: see the
        rejected submissions on <Link href="/traces">the traces page</Link>.
      </p>
    </>
  );
}
