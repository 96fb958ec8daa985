// The fixed word lists of the measurement. They are part of the method's definition: a
// change to any of them changes measured numbers, so it needs a new method version.

/**
 * German function words: stop words, and the sign of a language that capitalises its nouns, so
 * that a capital there is no sign of a name (see readCapitals in text.ts).
 */
export const GERMAN_WORDS: ReadonlySet<string> = new Set(
  (
    "der die das den dem des und ist sind nicht mit f\u00fcr auf ein eine einen einem einer eines zu im vom zum " +
    "zur von sich wird werden wurde wurden auch nach bei oder aus durch wie nur noch bis jetzt kein keine " +
    "dass wenn aber beim ins sowie"
  ).split(" "),
);

/**
 * French function words: stop words (articles, prepositions, pronouns, conjunctions, the forms of
 * être, avoir and the commonest modals). Not "car", "plus" and "non", which are also words of
 * their own in English and in compounds ("non-free"), nor "mon", "ton" and their kin, which
 * technical French seldom uses and English dates do ("Mon, 12 Jan").
 */
export const FRENCH_WORDS: ReadonlySet<string> = new Set(
  (
    "le la les un une des du de au aux ce cet cette ces son sa ses notre nos votre vos leur " +
    "leurs quel quelle quels quelles chaque tout tous toute toutes aucun aucune " +
    "quelque quelques plusieurs autre autres m\u00eame m\u00eames \u00e0 en dans sur sous avec sans pour " +
    "par entre vers chez contre depuis pendant avant apr\u00e8s selon parmi malgr\u00e9 d\u00e8s hors jusque " +
    "je tu il elle on nous vous ils elles me te se lui eux moi toi soi y qui que quoi dont o\u00f9 " +
    "lequel laquelle lesquels lesquelles auquel auxquels duquel celui celle ceux celles ceci cela " +
    "\u00e7a et ou mais donc ni or si comme quand lorsque puisque parce quoique afin ainsi alors puis " +
    "ne pas aussi tr\u00e8s d\u00e9j\u00e0 encore \u00eatre est sont suis es sommes \u00eates \u00e9tait \u00e9taient " +
    "\u00e9t\u00e9 \u00e9tant sera seront serait seraient soit soient fut avoir ai as a avons avez ont avait " +
    "avaient aura auront aurait eu ayant peut peuvent pourra doit doivent"
  ).split(" "),
);

/**
 * Spanish function words: stop words (articles, prepositions, pronouns, conjunctions, the forms of
 * ser, estar and haber and the commonest modals). Not "era", "sea", "tan" and "todo", which are
 * also words of their own in English or in code ("TODO").
 */
export const SPANISH_WORDS: ReadonlySet<string> = new Set(
  (
    "el la los las un una unos unas lo al del este esta estos estas ese esa esos esas aquel aquella " +
    "aquellos aquellas mi mis tu tus su sus nuestro nuestra nuestros nuestras cada toda todos todas " +
    "otro otra otros otras mismo misma mismos mismas alg\u00fan alguna algunos algunas ning\u00fan ninguna " +
    "cualquier varios varias a ante con contra de desde durante en entre hacia hasta mediante para por " +
    "seg\u00fan sin sobre tras yo t\u00fa \u00e9l ella ello ellos ellas usted ustedes nosotros nosotras me te se " +
    "nos os le les que qu\u00e9 quien qui\u00e9n quienes cual cu\u00e1l cuales cuyo cuya donde d\u00f3nde cuando " +
    "esto eso y e o u ni pero sino porque aunque si mientras como pues no s\u00ed ya muy tambi\u00e9n m\u00e1s " +
    "ser es son eran fue fueron sido siendo ser\u00e1 ser\u00e1n sean estar est\u00e1 est\u00e1n estaba estaban " +
    "haber ha han hay hab\u00eda hab\u00edan puede pueden debe deben"
  ).split(" "),
);

/**
 * What French elides before a vowel: "qu'il", "d'une", "c'est", "jusqu'à" are one token (an
 * apostrophe between two letters does not cut one), and such a token is a stop word when what
 * follows the apostrophe is one (see isElidedStop in tokens.ts). "l'option" stays a word.
 */
export const ELISIONS: ReadonlySet<string> = new Set("c d j l m n s t qu jusqu lorsqu puisqu quoiqu".split(" "));

/**
 * The function words of the languages the measurement tells apart (since floorline-facts/4),
 * each list the commonest words of its language that are rarely words of the others. A text's
 * language is the one whose function words it uses (languageOf in text.ts); any of them is
 * what puts a text's words into phrases (phrasingOf).
 */
export const LANGUAGE_WORDS: readonly ReadonlySet<string>[] = [
  // English
  new Set(
    (
      "the and of to is are was were with that this which from by be been it its or not for when if " +
      "will can each but their these those there has have"
    ).split(" "),
  ),
  // German
  GERMAN_WORDS,
  // French
  new Set(
    (
      "le la les et est sont des une du pour dans qui que sur pas avec ce cette ces par ou au aux il " +
      "elle ne se son sa ses leur \u00eatre peut"
    ).split(" "),
  ),
  // Spanish
  new Set(
    (
      "el los las y del para una con por al lo como m\u00e1s pero sus su este esta estos la que se " +
      "cuando tambi\u00e9n puede ser"
    ).split(" "),
  ),
];

/**
 * Words that name nothing specific: function words, and the generic words a summary uses
 * when it has stopped saying anything ("the document discusses various topics").
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "a an the and or nor but if then else so than that this these those there here it its itself " +
    "is are was were be been being am do does did done doing have has had having will would shall " +
    "should can could may might must not no yes of in on at to from by for with without within into " +
    "onto over under above below between among about after before during since until upon via per " +
    "as like also too very just only even still yet ever never always often sometimes again further " +
    "more most less least much many some any all each every both either neither few several such " +
    "own same other another what which who whom whose when where why how whether while because " +
    "although though however therefore thus hence i me my mine we us our ours you your yours he him " +
    "his she her hers they them their theirs one ones up down out off now new old etc e.g i.e " +
    "various variety topic topics thing things stuff document documents doc discuss discusses " +
    "discussed discussing discussion cover covers covered covering overview summary summarize " +
    "summarizes summarized summarise summarises summarised information info details detail detailed " +
    "aspect aspects content contents general generally overall relevant important key main mainly " +
    "related regarding include includes included including improvement improvements change changes " +
    "changed update updates updated miscellaneous misc number numbers part parts section sections " +
    "text period series range several certain particular specific different way ways lot lots " +
    "kind kinds type types matter matters point points area areas item items well good better best " +
    "make makes made get gets got give gives given take takes taken use uses used using"
  )
    .split(" ")
    .concat([...GERMAN_WORDS, ...FRENCH_WORDS, ...SPANISH_WORDS]),
);

/** Units a number may carry, each spelling mapped to one name, so "4 GB" and "4gb" agree. */
export const UNITS: ReadonlyMap<string, string> = new Map(
  (
    "b:b byte:b bytes:b kb:kb kib:kb kilobyte:kb kilobytes:kb mb:mb mib:mb megabyte:mb megabytes:mb " +
    "gb:gb gib:gb gigabyte:gb gigabytes:gb tb:tb tib:tb terabyte:tb terabytes:tb " +
    "ns:ns nanosecond:ns nanoseconds:ns us:us microsecond:us microseconds:us ms:ms msec:ms " +
    "millisecond:ms milliseconds:ms s:s sec:s secs:s second:s seconds:s min:min mins:min minute:min " +
    "minutes:min h:h hr:h hrs:h hour:h hours:h day:d days:d week:wk weeks:wk %:% percent:% pct:% " +
    "x:x usd:usd eur:eur gbp:gbp $:usd \u20ac:eur \u00a3:gbp k:k m:m"
  )
    .split(" ")
    .map((pair) => {
      const colon = pair.lastIndexOf(":");
      return [pair.slice(0, colon), pair.slice(colon + 1)] as const;
    }),
);

/** Units that only count when written against the number ("5s", "3x"), never as a word after it. */
export const ATTACHED_ONLY_UNITS: ReadonlySet<string> = new Set(["s", "h", "x", "k", "m", "b", "us"]);

/** Words that scale the number before them ("4.2 million"), by their power of ten. */
export const MAGNITUDES: ReadonlyMap<string, number> = new Map([
  ["thousand", 3],
  ["million", 6],
  ["billion", 9],
  ["trillion", 12],
]);

/**
 * Numbers written as words (since floorline-facts/4): "exits with fifteen" states what "15"
 * does. English, and the small numbers of German, French and Spanish, less the words that
 * mostly mean something else ("null", "once", "elf", "un", "dos", "sept", "cent", "mil").
 * English compounds ("twenty-one") are read in tokens.ts.
 */
export const NUMBER_WORDS: ReadonlyMap<string, number> = new Map(
  (
    "zero:0 one:1 two:2 three:3 four:4 five:5 six:6 seven:7 eight:8 nine:9 ten:10 eleven:11 " +
    "twelve:12 thirteen:13 fourteen:14 fifteen:15 sixteen:16 seventeen:17 eighteen:18 " +
    "nineteen:19 twenty:20 thirty:30 forty:40 fifty:50 sixty:60 seventy:70 eighty:80 ninety:90 " +
    "hundred:100 dozen:12 " +
    "eins:1 zwei:2 drei:3 vier:4 f\u00fcnf:5 sechs:6 sieben:7 acht:8 neun:9 zehn:10 zw\u00f6lf:12 " +
    "zwanzig:20 hundert:100 tausend:1000 " +
    "z\u00e9ro:0 deux:2 trois:3 quatre:4 cinq:5 huit:8 neuf:9 dix:10 douze:12 quinze:15 " +
    "vingt:20 trente:30 mille:1000 " +
    "cero:0 tres:3 cuatro:4 cinco:5 seis:6 siete:7 ocho:8 nueve:9 diez:10 doce:12 " +
    "quince:15 veinte:20 cien:100"
  )
    .split(" ")
    .map((pair) => {
      const colon = pair.lastIndexOf(":");
      return [pair.slice(0, colon), Number(pair.slice(colon + 1))] as const;
    }),
);

export const ORDINAL_SUFFIXES: ReadonlySet<string> = new Set(["st", "nd", "rd", "th"]);

/** English month names and their abbreviations, to read "May 2, 2026" as 2026-05-02. */
export const MONTHS: ReadonlyMap<string, number> = new Map(
  "january:1 jan:1 february:2 feb:2 march:3 mar:3 april:4 apr:4 may:5 june:6 jun:6 july:7 jul:7 august:8 aug:8 september:9 sep:9 sept:9 october:10 oct:10 november:11 nov:11 december:12 dec:12"
    .split(" ")
    .map((pair) => {
      const [name, n] = pair.split(":");
      return [name ?? "", Number(n)] as const;
    }),
);

/** Log levels that make a line an error line. */
export const ERROR_LEVELS: ReadonlySet<string> = new Set([
  "error",
  "err",
  "fatal",
  "critical",
  "crit",
  "panic",
  "severe",
  "emerg",
  "emergency",
  "alert",
]);

/** Log levels of a warning: an entry a reader of the log needs, as an error (salience, since /4). */
export const WARNING_LEVELS: ReadonlySet<string> = new Set(["warn", "warning"]);

/**
 * What a log line may be led by when it belongs to the entry before it (PostgreSQL's DETAIL,
 * HINT, STATEMENT, ...; since /4): it is part of that error's entry.
 */
export const DETAIL_LEVELS: ReadonlySet<string> = new Set([
  "detail",
  "hint",
  "statement",
  "context",
  "query",
  "location",
]);

/** Every log level a line may start with (a line led by one of these reads as a log line). */
export const LOG_LEVELS: ReadonlySet<string> = new Set([
  ...ERROR_LEVELS,
  "trace",
  "debug",
  "info",
  "notice",
  "warn",
  "warning",
]);

/** Every word a log line's level may be: the levels, the detail levels, and PostgreSQL's LOG. */
export const LEVEL_WORDS: ReadonlySet<string> = new Set([...LOG_LEVELS, ...DETAIL_LEVELS, "log"]);

/** First words that make a line an error line outside logs ("Traceback ...", "Error: ..."). */
export const ERROR_OPENERS: ReadonlySet<string> = new Set([
  "error",
  "fatal",
  "panic",
  "traceback",
  "exception",
  "failed",
  "failure",
]);
