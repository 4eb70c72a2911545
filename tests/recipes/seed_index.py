"""Every code example of the five seed hook references, by name, with the index quotes that
locate it in its seed.

The seeds (the TypeScript and Go hook systems agenthooks unifies: 000 to 004, described in
examples/README.md) are not part of this repository, so their examples are listed here: one
entry per example, in seed order, as (its first line, the quotes of examples/README.md that fall
in it). 001's examples are its fenced blocks; the others' are found by their hook calls, type
declarations and file captions. The recipe-index tests check the README against this list.
"""

from __future__ import annotations

SEED_EXAMPLES: dict[str, list[tuple[str, tuple[str, ...]]]] = {
    "000": [
        (
            "agent.addHook('onMessage', (ctx) => {",
            (
                "Returns an idempotent disposer.",
                "console.log('assistant said:', ctx.message.content);",
                "// trim whitespace",
            ),
        ),
        (
            "agent.addHook('onResponse', (ctx) => ({",
            ("// trim whitespace", "// runs after the trim hook, sees the trimmed content"),
        ),
        (
            "agent.addHook('onResponse', (ctx) => ({",
            (
                "// runs after the trim hook, sees the trimmed content",
                "// Hook A — cache check, short-circuits on hit",
            ),
        ),
        (
            "agent.addHook('preRequest', (ctx) => {",
            (
                "// Hook A — cache check, short-circuits on hit",
                "// Hook B — only runs when A returns void",
            ),
        ),
        (
            "agent.addHook('preRequest', (ctx) => ({",
            (
                "// Hook B — only runs when A returns void",
                "// ✓ Permission check via short-circuit — tool message lands, loop continues.",
            ),
        ),
        (
            "agent.addHook('preToolCall', (ctx) => {",
            (
                "// ✓ Permission check via short-circuit — tool message lands, loop continues.",
                "// ✗ Same check via throw — terminates the chat, caller sees the throw.",
            ),
        ),
        (
            "agent.addHook('preToolCall', (ctx) => {",
            ("// ✗ Same check via throw — terminates the chat, caller sees the throw.",),
        ),
        ("type OnChatStartCtx = {", ("type OnChatStartCtx = {",)),
        (
            "agent.addHook('onChatStart', (ctx) => {",
            ("console.log('chat started:', ctx.message);",),
        ),
        (
            "type OnChatDoneCtx = {",
            ("console.log('chat started:', ctx.message);", "type OnChatDoneCtx = {"),
        ),
        (
            "agent.addHook('onChatDone', (ctx) => {",
            ("console.log('chat done:', ctx.response.finishReason);",),
        ),
        (
            "type OnChatAbortCtx = {",
            ("console.log('chat done:', ctx.response.finishReason);", "type OnChatAbortCtx = {"),
        ),
        (
            "agent.addHook('onChatAbort', (ctx) => {",
            ("console.log('chat cancelled:', ctx.reason);",),
        ),
        (
            "type OnChatErrorCtx = {",
            ("console.log('chat cancelled:', ctx.reason);", "type OnChatErrorCtx = {"),
        ),
        ("agent.addHook('onChatError', (ctx) => {", ("console.log('chat failed:', ctx.error);",)),
        (
            "type PreRequestCtx = {",
            ("console.log('chat failed:', ctx.error);", "type PreRequestCtx = {"),
        ),
        (
            "type PreRequestReturn =",
            ("type PreRequestCtx = {", "type PreRequestReturn =", "Cache-hit short-circuit:"),
        ),
        ("agent.addHook('preRequest', (ctx) => {", ("Cache-hit short-circuit:",)),
        ("type OnResponseCtx = {", ("type OnResponseCtx = {",)),
        (
            "type OnResponseReturn = void | { response: ProviderResponse };Fires af",
            ("type OnResponseReturn =",),
        ),
        (
            "agent.addHook('onResponse', (ctx) => {",
            ("cache.set(hash(ctx.request), ctx.response);",),
        ),
        (
            "type OnMessageCtx = {",
            ("cache.set(hash(ctx.request), ctx.response);", "type OnMessageCtx = {"),
        ),
        (
            "agent.addHook('onMessage', (ctx) => {",
            ("console.log('tool result:', ctx.message.id);",),
        ),
        (
            "type PreToolCallCtx = {",
            ("console.log('tool result:', ctx.message.id);", "type PreToolCallCtx = {"),
        ),
        (
            "type PreToolCallReturn =",
            ("type PreToolCallCtx = {", "type PreToolCallReturn =", "Cached-result short-circuit:"),
        ),
        ("agent.addHook('preToolCall', (ctx) => {", ("Cached-result short-circuit:",)),
        ("type OnToolCallResultCtx = {", ("type OnToolCallResultCtx = {",)),
        (
            "type OnToolCallResultReturn = void | { result: unknown };Fires after a",
            ("type OnToolCallResultCtx = {", "type OnToolCallResultReturn ="),
        ),
        (
            "agent.addHook('onToolCallResult', (ctx) => {",
            ("return { result: redactEmails(ctx.result) };",),
        ),
        (
            "type OnToolCallErrorCtx = {",
            ("return { result: redactEmails(ctx.result) };", "type OnToolCallErrorCtx = {"),
        ),
        (
            "type OnToolCallErrorReturn = void | { error: unknown };Fires when a to",
            ("type OnToolCallErrorCtx = {", "type OnToolCallErrorReturn ="),
        ),
        (
            "agent.addHook('onToolCallError', (ctx) => {",
            ("if (ctx.error instanceof Ag2bToolValidationError) {",),
        ),
        ("type OnScopeRegisterCtx = {", ("type OnScopeRegisterCtx = {",)),
        (
            "agent.addHook('onScopeRegister', (ctx) => {",
            ("type OnScopeRegisterCtx = {", "console.log('scope active:', ctx.scope.name);"),
        ),
        (
            "type OnScopeUnregisterCtx = {",
            ("console.log('scope active:', ctx.scope.name);", "type OnScopeUnregisterCtx = {"),
        ),
        (
            "agent.addHook('onScopeUnregister', (ctx) => {",
            ("type OnScopeUnregisterCtx = {", "console.log('scope removed:', ctx.scope.name);"),
        ),
    ],
    "001": [
        (
            'import { Agent, HookEvents } from "@opperai/agents";',
            ("const unregister = agent.registerHook(HookEvents.AgentStart, ({ context }) => {",),
        ),
        (
            "agent.on(HookEvents.AgentStart, ({ context }) => {",
            ('Parent span: ${context.parentSpanId ?? "none"}',),
        ),
        (
            "agent.on(HookEvents.AgentEnd, ({ context, result, error }) => {",
            ("Tool calls: ${context.toolCalls.length}",),
        ),
        (
            "agent.on(HookEvents.LoopStart, ({ context }) => {",
            ("Starting iteration ${context.iteration + 1}",),
        ),
        ("agent.on(HookEvents.LlmCall, ({ context, callType }) => {", ("LLM call: ${callType}",)),
        (
            "agent.on(HookEvents.LlmResponse, ({ context, callType, response, parse",
            ("Input tokens: ${context.usage.inputTokens}",),
        ),
        (
            "agent.on(HookEvents.ThinkEnd, ({ context, thought }) => {",
            ("Reasoning: ${t.reasoning}",),
        ),
        (
            "agent.on(HookEvents.BeforeTool, ({ context, tool, input, toolCallId })",
            ("Executing ${tool.name}",),
        ),
        (
            "agent.on(HookEvents.AfterTool, ({ context, tool, result, record }) => ",
            ("const duration = record.finishedAt - record.startedAt;",),
        ),
        (
            "agent.on(HookEvents.ToolError, ({ context, toolName, tool, error, tool",
            ("// tool may be undefined if tool was not found",),
        ),
        (
            "const pendingTools = new Map<string, { name: string; startTime: number",
            ("const pendingTools = new Map<string, { name: string; startTime: number }>();",),
        ),
        (
            "agent.on(HookEvents.MemoryRead, ({ context, key, value }) => {",
            ("Memory read: ${key} = ${value !== undefined}",),
        ),
        (
            "agent.on(HookEvents.StreamStart, ({ context, callType }) => {",
            ('process.stdout.write(chunkData.delta ?? "");',),
        ),
        ("// Subscribe to events", ("agent.once(HookEvents.AgentEnd, ({ result }) => {",)),
    ],
    "002": [
        (
            "BeforeToolCall: func(c agent.BeforeToolCallCtx) (block bool, reason st",
            ('return true, "file deletion is disabled in this session"',),
        ),
        (
            "AfterToolCall: func(c agent.AfterToolCallCtx) *agent.AfterToolCallResu",
            (
                "return &agent.AfterToolCallResult{Terminate: &stop} // end the run on any tool error",
            ),
        ),
        (
            "PrepareNextTurn: func(c agent.TurnCtx) *agent.TurnUpdate {",
            ('review := llm.GetModel("minimax-cn", "MiniMax-M3")',),
        ),
        (
            "ShouldStopAfterTurn: func(c agent.TurnCtx) bool {",
            ("return len(c.NewMessages) > 20 // cap the number of messages a run may add",),
        ),
        (
            "TransformContext: func(messages []agent.AgentMessage) []agent.AgentMes",
            ("return compact(messages) // your summarization strategy",),
        ),
    ],
    "003": [
        ("agent.Hooks{", ('log.Printf("Tool call: %s (branch: %s)", tc.ToolName, tc.Branch)',)),
        ("agent.Hooks{", ('DenyReason: "this tool is not allowed",',)),
        ("agent.Hooks{", ('modified := strings.ReplaceAll(tc.Input, "SECRET", "[REDACTED]")',)),
        ("agent.Hooks{", ('extra := message.NewUserMessage("Remember: always respond in JSON.")',)),
        ("agent.Hooks{", ('Output: "API temporarily unavailable, using cached data",',)),
        ("agent.Hooks{", ('Content: "Service temporarily unavailable. Please try again.",',)),
        ("agent.Hooks{", ("if cached, ok := cache.Get(ac.Input); ok {",)),
        ("agent.Hooks{", ("modified.Content = sanitize(modified.Content)",)),
        ("agent.Hooks{", ("metrics.RecordDuration(rc.AgentName, rc.Duration)",)),
        ("agent.Hooks{", ('DenyReason: "message contains PII",',)),
        (
            "agent.Hooks{",
            (
                'log.Printf("[%s] agent=%s tool=%s", evt.Type, evt.AgentName, evt.ToolName)',
                "agent.WithHooks(agent.NewObservingHooks(func(evt agent.HookEvent) {",
            ),
        ),
        (
            "NewObservingHooks(func(evt agent.HookEvent) {",
            ("agent.WithHooks(agent.NewObservingHooks(func(evt agent.HookEvent) {",),
        ),
        (
            "orchestrator := agent.New(llmClient,",
            ("// worker inherits myHooks since it has none of its own",),
        ),
        ("type ToolUseContext struct {", ("type ToolUseContext struct {",)),
        ("type PostToolUseContext struct {", ("type PostToolUseContext struct {",)),
        ("type ToolErrorContext struct {", ("type ToolErrorContext struct {",)),
        ("type ModelCallContext struct {", ("type ModelCallContext struct {",)),
        ("type ModelResponseContext struct {", ("type ModelResponseContext struct {",)),
        ("type ModelErrorContext struct {", ("type ModelErrorContext struct {",)),
        ("type SubagentEventContext struct {", ("type SubagentEventContext struct {",)),
        ("type LifecycleContext struct {", ("type LifecycleContext struct {",)),
        ("type RunContext struct {", ("type RunContext struct {",)),
        ("NewObservingHooks(func(evt agent.HookEvent) {", ("websocket.Send(data)",)),
    ],
    "004": [
        ("hooks.ts", ("Starting ${agent.name} with: ${input}",)),
        ("type ToolCallDecision =", ("type ToolCallDecision =",)),
        ("deny-tool.ts", ('if (toolCall.function.name === "delete_user" && !context.isAdmin) {',)),
        ("modify-tool.ts", ('modifiedParams: { query: "safe version of the query" },',)),
        (
            "Explicitly allow (same as returning void):",
            (
                'modifiedParams: { query: "safe version of the query" },',
                'return { decision: "allow" };',
            ),
        ),
        ("type HandoffDecision =", ('return { decision: "allow" };', "type HandoffDecision =")),
        ("deny-handoff.ts", ('return { decision: "deny", reason: "Admin agent access denied" };',)),
        (
            "matchers.ts",
            ("match: /.*_file$/, // Regex: matches read_file, write_file, delete_file",),
        ),
        ("on-stop.ts", ('await logToAnalytics("agent_stopped", {',)),
        ("subagent-hooks.ts", ("is delegating to ${subagent.agent.name}",)),
        ("session-lifecycle.ts", ('console.log("Session started");',)),
        ("llm-hooks.ts", ("LLM call for ${agent.name} with ${messages.length} messages",)),
        ("run-hooks.ts", ('await run(agent, "Hello", { runHooks: hooks });',)),
        ("types.ts", ("interface AgentHooks<TContext> {",)),
        ("session-hooks.ts", ('await logToAnalytics("user_message", input);',)),
    ],
}
