export default function Forbidden() {
  return (
    <>
      <h1>Not allowed</h1>
      <p className="panel" data-testid="forbidden">
        This page needs an admin, or this server does not answer to the address you used. <a href="/">Overview</a>
      </p>
    </>
  );
}
