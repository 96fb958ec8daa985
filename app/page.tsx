export const dynamic = "force-dynamic";

export default function Home() {
  return <h1>Chains</h1>;
}
