// French and Spanish function words are stop words, as English and German ones are: a source's
// "lorsque" or "mediante" is no context a summary must keep, and a French or Spanish sentence
// made of them and generic words states nothing. Hand-made texts, none from the corpus.
import { describe, expect, it } from "vitest";
import { measure } from "@/lib/measure/index";
import { classify } from "@/lib/measure/tokens";
import { FRENCH_WORDS, LANGUAGE_WORDS, SPANISH_WORDS, STOP_WORDS } from "@/lib/measure/words";

const kindOf = (word: string) => classify(word, false).map((t) => t.kind);
const against = (content: string, source: string | null) => measure(content, { source, format: "text" });

const french = [
  "La commande backup-run copie chaque nuit les fichiers du répertoire /srv/data vers le disque /mnt/backup.",
  "Lorsque le disque est plein, elle s'arrête avant la copie et affiche un message d'erreur dans /var/log/backup.log.",
  "Les anciennes copies sont supprimées après 14 jours, sauf celles qu'on a marquées avec --keep.",
  "Depuis la version 2.3, la commande envoie aussi un courriel à l'administrateur dont l'adresse se trouve dans /etc/backup.conf.",
].join("\n");

const spanish = [
  "El programa backup-run copia cada noche los archivos del directorio /srv/data hacia el disco /mnt/backup.",
  "Cuando el disco está lleno, se detiene antes de la copia y escribe un mensaje de error en /var/log/backup.log.",
  "Las copias antiguas se borran tras 14 días, salvo aquellas que se marcaron mediante --keep.",
  "Desde la versión 2.3, el programa también envía un correo al administrador, cuya dirección está en /etc/backup.conf.",
].join("\n");

describe("French function words", () => {
  it("are stop words, accents and all", () => {
    for (const word of ["lorsque", "depuis", "dont", "après", "malgré", "très", "été", "était", "à", "où", "ça"]) {
      expect(kindOf(word), word).toEqual(["stop"]);
    }
    // A content word stays one.
    expect(kindOf("répertoire")).toEqual(["keyword"]);
  });

  it("do not cost a faithful French pass that says the same with other function words", () => {
    const reworded = french
      .replace("vers le", "sur le")
      .replace("Lorsque", "Quand")
      .replace("qu'on a marquées avec", "que l'on a marquées par")
      .replace("Depuis", "Dès")
      .replace("dont l'adresse se trouve dans", "lequel a son adresse en")
      .replace(", elle s'arrête", ", il s'arrête");
    const answer = against(reworded, french);
    expect(answer.facts).toMatchObject({ in_source: 7, lost: 0 });
    // What it loses is "trouve", a verb, beside "se": no function word is counted lost.
    expect(answer.semantic_density_score).toBeGreaterThanOrEqual(0.95);
  });

  it("keep a faithful French summary out of the band's edge", () => {
    const summary = [
      "backup-run copie chaque nuit les fichiers de /srv/data sur le disque /mnt/backup ; si ce disque est plein, il s'arrête avant toute copie et affiche un message d'erreur (/var/log/backup.log).",
      "Les anciennes copies partent au bout de 14 jours, hormis celles marquées par --keep.",
      "Depuis la version 2.3, un courriel part chez l'administrateur, dont l'adresse est dans /etc/backup.conf.",
    ].join("\n");
    const answer = against(summary, french);
    expect(answer.facts).toMatchObject({ in_source: 7, retained: 7 });
    expect(answer.semantic_density_score).toBeGreaterThanOrEqual(0.85);
  });

  it("make French filler and French stuffing void", () => {
    const filler =
      "Ce texte présente plusieurs éléments généraux. Il est question de divers thèmes, dont certains sont très intéressants pour tous les lecteurs.";
    // No sentence states anything of the source: filler, every byte of it.
    expect(against(filler, french)).toMatchObject({ semantic_density_score: 0, components: { efficiency: 0 } });
    // Without a source, its function words are not specific.
    expect(against(filler, null).semantic_density_score).toBeLessThan(0.3);
    // The source's function words, stuffed: nothing kept.
    const stuffed =
      "la les du vers le dans avec qui que lorsque depuis après sauf celles dont se un une aussi sont elle";
    expect(against(stuffed, french).semantic_density_score).toBe(0);
  });
});

describe("Spanish function words", () => {
  it("are stop words, accents and all", () => {
    for (const word of ["mediante", "hacia", "según", "cuya", "también", "está", "había", "desde", "tras"]) {
      expect(kindOf(word), word).toEqual(["stop"]);
    }
    expect(kindOf("directorio")).toEqual(["keyword"]);
  });

  it("do not cost a faithful Spanish pass that says the same with other function words", () => {
    const reworded = spanish
      .replace("hacia el", "en el")
      .replace("Cuando", "Si")
      .replace("tras", "después de")
      .replace("mediante", "con")
      .replace("Desde la", "A partir de la")
      .replace("cuya dirección está en", "que tiene su dirección en");
    expect(against(reworded, spanish)).toMatchObject({
      semantic_density_score: 1,
      facts: { in_source: 7, retained: 7 },
    });
  });

  it("make Spanish filler void", () => {
    const filler =
      "Este texto presenta varios elementos generales. Se trata de diversos temas, algunos de ellos muy interesantes para todos los lectores.";
    expect(against(filler, spanish)).toMatchObject({ semantic_density_score: 0, components: { efficiency: 0 } });
    expect(against(filler, null).semantic_density_score).toBeLessThan(0.3);
  });
});

describe("elided function words", () => {
  it("are stop words when what follows the apostrophe is one", () => {
    for (const word of ["qu'il", "Qu'il", "d'une", "s'il", "c'est", "n'est", "jusqu'à", "l'un", "d'après"]) {
      expect(kindOf(word), word).toEqual(["stop"]);
    }
    // An elided article before a content word stays one word, as the tokens cut it.
    expect(kindOf("l'option")).toEqual(["keyword"]);
    expect(kindOf("d'erreur")).toEqual(["keyword"]);
    expect(kindOf("aujourd'hui")).toEqual(["keyword"]);
  });

  it("are not context a summary must keep", () => {
    const source =
      "Le service s'arrête s'il manque la clé /etc/app.key, jusqu'à ce qu'on la fournisse ; c'est le cas d'une clé vide.";
    const content =
      "Le service s'arrête si la clé /etc/app.key manque, tant que l'on ne la fournisse pas ; il en est ainsi dans le cas d'une clé vide.";
    expect(against(content, source).semantic_density_score).toBe(1);
  });
});

describe("the lists", () => {
  it("hold every word that tells French or Spanish apart, as English's and German's do", () => {
    const [english, german, fr, es] = LANGUAGE_WORDS;
    for (const [words, stop] of [
      [english, STOP_WORDS],
      [german, STOP_WORDS],
      [fr, FRENCH_WORDS],
      [es, SPANISH_WORDS],
    ] as const) {
      for (const word of words ?? []) expect(stop.has(word), word).toBe(true);
    }
  });

  it("leave out the words English texts use as words of their own", () => {
    // A weekday in a date, a marker in code, a negation in a compound.
    expect(kindOf("Mon")).toEqual(["name"]);
    expect(kindOf("TODO")).toEqual(["name"]);
    for (const word of ["car", "plus", "non", "era", "sea", "tan", "todo", "mon"])
      expect(STOP_WORDS.has(word), word).toBe(false);
    // "non-free" is not stated by "free".
    const source = "The archive area non-free holds 2 packages.";
    expect(against("The archive area free holds 2 packages.", source).semantic_density_score).toBeLessThan(1);
  });
});
