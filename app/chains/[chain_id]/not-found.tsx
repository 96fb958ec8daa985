import { ChainWaiting } from "@/components/chains/chain-waiting";

export default function ChainNotFound() {
  return <ChainWaiting />;
}
