"use client";
// Pretty-printed, foldable JSON. Only expanded nodes are rendered and long arrays or objects
// show their children a chunk at a time, so a large document stays a small DOM.
import { useMemo, useState } from "react";

const CHUNK = 100;
const OPEN_DEPTH = 2;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function Scalar({ value }: { value: Exclude<Json, Json[] | { [key: string]: Json }> }) {
  const kind = value === null ? "null" : typeof value;
  return <span className={`json-${kind}`}>{JSON.stringify(value)}</span>;
}

function Key({ name }: { name: string | null }) {
  if (name === null) return null;
  return (
    <>
      <span className="json-key">{JSON.stringify(name)}</span>
      <span className="json-punct">: </span>
    </>
  );
}

interface NodeProps<V> {
  name: string | null;
  value: V;
  depth: number;
  last: boolean;
  /** The node's path, named by its fold button: "root.results[3]". */
  label: string;
}

function Node({ name, value, depth, last, label }: NodeProps<Json>) {
  if (value === null || typeof value !== "object") {
    return (
      <div className="json-line">
        <Key name={name} />
        <Scalar value={value} />
        {last ? null : <span className="json-punct">,</span>}
      </div>
    );
  }
  return <Container name={name} value={value} depth={depth} last={last} label={label} />;
}

function Container({ name, value, depth, last, label }: NodeProps<Json[] | { [key: string]: Json }>) {
  const isArray = Array.isArray(value);
  const entries = useMemo(
    () => (isArray ? value.map((v, i) => [String(i), v] as const) : Object.entries(value)),
    [isArray, value],
  );
  const [open, setOpen] = useState(depth < OPEN_DEPTH);
  const [shown, setShown] = useState(CHUNK);
  const [openBracket, closeBracket] = isArray ? ["[", "]"] : ["{", "}"];
  const comma = last ? null : <span className="json-punct">,</span>;
  if (entries.length === 0) {
    return (
      <div className="json-line">
        <Key name={name} />
        <span className="json-punct">{openBracket + closeBracket}</span>
        {comma}
      </div>
    );
  }
  const remaining = entries.length - shown;
  return (
    <div className="json-node">
      <div className="json-line">
        <button
          type="button"
          className="json-toggle"
          aria-expanded={open}
          aria-label={`${open ? "Collapse" : "Expand"} ${label}`}
          onClick={() => setOpen(!open)}
        >
          {open ? "▾" : "▸"}
        </button>
        <Key name={name} />
        <span className="json-punct">{openBracket}</span>
        {open ? null : (
          <>
            <span className="json-summary">
              {entries.length}{" "}
              {isArray ? (entries.length === 1 ? "item" : "items") : entries.length === 1 ? "key" : "keys"}
            </span>
            <span className="json-punct">{closeBracket}</span>
            {comma}
          </>
        )}
      </div>
      {open ? (
        <>
          <div className="json-children">
            {entries.slice(0, shown).map(([key, child], i) => (
              <Node
                key={key}
                name={isArray ? null : key}
                value={child}
                depth={depth + 1}
                last={i === entries.length - 1}
                label={isArray ? `${label}[${key}]` : `${label}.${key}`}
              />
            ))}
            {remaining > 0 ? (
              <button type="button" className="json-more" onClick={() => setShown(shown + CHUNK)}>
                Show {Math.min(CHUNK, remaining)} more ({remaining} not shown)
              </button>
            ) : null}
          </div>
          <div className="json-line">
            <span className="json-punct">{closeBracket}</span>
            {comma}
          </div>
        </>
      ) : null}
    </div>
  );
}

export function JsonTree({ value }: { value: unknown }) {
  return (
    <div className="json-tree mono" data-testid="json-tree">
      <Node name={null} value={value as Json} depth={0} last label="root" />
    </div>
  );
}
