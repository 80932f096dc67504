export namespace api {
	
	export class AgentListener {
	    enabled: boolean;
	    addr: string;
	    running: boolean;
	    url?: string;
	    error?: string;
	    local_api: boolean;
	
	    static createFrom(source: any = {}) {
	        return new AgentListener(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.enabled = source["enabled"];
	        this.addr = source["addr"];
	        this.running = source["running"];
	        this.url = source["url"];
	        this.error = source["error"];
	        this.local_api = source["local_api"];
	    }
	}
	export class AgentToken {
	    id: string;
	    name: string;
	    // Go type: time
	    created_at: any;
	    // Go type: time
	    last_used_at?: any;
	
	    static createFrom(source: any = {}) {
	        return new AgentToken(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.name = source["name"];
	        this.created_at = this.convertValues(source["created_at"], null);
	        this.last_used_at = this.convertValues(source["last_used_at"], null);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class AgentTokenRequest {
	    name: string;
	
	    static createFrom(source: any = {}) {
	        return new AgentTokenRequest(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	    }
	}
	export class AppInfo {
	    version: string;
	    dataDir: string;
	
	    static createFrom(source: any = {}) {
	        return new AppInfo(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.version = source["version"];
	        this.dataDir = source["dataDir"];
	    }
	}
	export class BackupImported {
	    added: Record<string, number>;
	    skipped: Record<string, number>;
	
	    static createFrom(source: any = {}) {
	        return new BackupImported(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.added = source["added"];
	        this.skipped = source["skipped"];
	    }
	}
	export class ByID {
	    id: string;
	
	    static createFrom(source: any = {}) {
	        return new ByID(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	    }
	}
	export class ByName {
	    name: string;
	
	    static createFrom(source: any = {}) {
	        return new ByName(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	    }
	}
	export class KnowledgeFileError {
	    path: string;
	    error: string;
	
	    static createFrom(source: any = {}) {
	        return new KnowledgeFileError(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.error = source["error"];
	    }
	}
	export class Collection {
	    id: string;
	    name: string;
	    paths: string[];
	    status: string;
	    files: number;
	    indexed_files: number;
	    chunks: number;
	    embedding_model?: string;
	    embedded_chunks: number;
	    errors: KnowledgeFileError[];
	    cancelled: boolean;
	    error?: string;
	    embedding_error?: string;
	    created_at: string;
	
	    static createFrom(source: any = {}) {
	        return new Collection(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.name = source["name"];
	        this.paths = source["paths"];
	        this.status = source["status"];
	        this.files = source["files"];
	        this.indexed_files = source["indexed_files"];
	        this.chunks = source["chunks"];
	        this.embedding_model = source["embedding_model"];
	        this.embedded_chunks = source["embedded_chunks"];
	        this.errors = this.convertValues(source["errors"], KnowledgeFileError);
	        this.cancelled = source["cancelled"];
	        this.error = source["error"];
	        this.embedding_error = source["embedding_error"];
	        this.created_at = source["created_at"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class CollectionRequest {
	    name?: string;
	    paths?: string[];
	
	    static createFrom(source: any = {}) {
	        return new CollectionRequest(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.paths = source["paths"];
	    }
	}
	export class ConversationDetail {
	    id: string;
	    title: string;
	    assistant: string;
	    model?: string;
	    thinking?: string;
	    pinned: boolean;
	    knowledge?: string[];
	    agent?: string;
	    project_id?: string;
	    // Go type: time
	    created_at: any;
	    // Go type: time
	    updated_at: any;
	    match?: chat.SearchMatch;
	    state: string;
	    error?: string;
	    messages: chat.Message[];
	    earlier?: number;
	    pending_question?: questions.Card;
	
	    static createFrom(source: any = {}) {
	        return new ConversationDetail(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.title = source["title"];
	        this.assistant = source["assistant"];
	        this.model = source["model"];
	        this.thinking = source["thinking"];
	        this.pinned = source["pinned"];
	        this.knowledge = source["knowledge"];
	        this.agent = source["agent"];
	        this.project_id = source["project_id"];
	        this.created_at = this.convertValues(source["created_at"], null);
	        this.updated_at = this.convertValues(source["updated_at"], null);
	        this.match = this.convertValues(source["match"], chat.SearchMatch);
	        this.state = source["state"];
	        this.error = source["error"];
	        this.messages = this.convertValues(source["messages"], chat.Message);
	        this.earlier = source["earlier"];
	        this.pending_question = this.convertValues(source["pending_question"], questions.Card);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ConversationPage {
	    items: chat.Conversation[];
	    next_cursor?: string;
	
	    static createFrom(source: any = {}) {
	        return new ConversationPage(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.items = this.convertValues(source["items"], chat.Conversation);
	        this.next_cursor = source["next_cursor"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class CreateConversationArgs {
	    title?: string;
	    assistant?: string;
	    project_id?: string;
	
	    static createFrom(source: any = {}) {
	        return new CreateConversationArgs(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.title = source["title"];
	        this.assistant = source["assistant"];
	        this.project_id = source["project_id"];
	    }
	}
	export class DeleteProjectArgs {
	    id: string;
	    with_conversations?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new DeleteProjectArgs(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.with_conversations = source["with_conversations"];
	    }
	}
	export class Deleted {
	    deleted: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Deleted(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.deleted = source["deleted"];
	    }
	}
	export class EngineDownloadRequest {
	    catalog_id?: string;
	    repo?: string;
	    file?: string;
	    revision?: string;
	
	    static createFrom(source: any = {}) {
	        return new EngineDownloadRequest(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.catalog_id = source["catalog_id"];
	        this.repo = source["repo"];
	        this.file = source["file"];
	        this.revision = source["revision"];
	    }
	}
	export class ExportArgs {
	    id: string;
	    format?: string;
	
	    static createFrom(source: any = {}) {
	        return new ExportArgs(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.format = source["format"];
	    }
	}
	export class ExportedFile {
	    name: string;
	    mime_type: string;
	    content: string;
	
	    static createFrom(source: any = {}) {
	        return new ExportedFile(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.mime_type = source["mime_type"];
	        this.content = source["content"];
	    }
	}
	export class ForkQuestionArgs {
	    id: string;
	    question_id: string;
	    answers: Record<string, questions.AnswerInput>;
	    comments?: string;
	
	    static createFrom(source: any = {}) {
	        return new ForkQuestionArgs(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.question_id = source["question_id"];
	        this.answers = this.convertValues(source["answers"], questions.AnswerInput, true);
	        this.comments = source["comments"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class GetConversationArgs {
	    id: string;
	    last?: number;
	    before?: string;
	
	    static createFrom(source: any = {}) {
	        return new GetConversationArgs(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.last = source["last"];
	        this.before = source["before"];
	    }
	}
	export class Health {
	    status: string;
	    version: string;
	    trace?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Health(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.status = source["status"];
	        this.version = source["version"];
	        this.trace = source["trace"];
	    }
	}
	export class HubFileArgs {
	    repo: string;
	    file: string;
	    revision?: string;
	
	    static createFrom(source: any = {}) {
	        return new HubFileArgs(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.repo = source["repo"];
	        this.file = source["file"];
	        this.revision = source["revision"];
	    }
	}
	export class ImportArgs {
	    data: string;
	
	    static createFrom(source: any = {}) {
	        return new ImportArgs(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.data = source["data"];
	    }
	}
	export class ImportBackupArgs {
	    data: string;
	
	    static createFrom(source: any = {}) {
	        return new ImportBackupArgs(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.data = source["data"];
	    }
	}
	export class ImportMCPConfigArgs {
	    content: string;
	
	    static createFrom(source: any = {}) {
	        return new ImportMCPConfigArgs(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.content = source["content"];
	    }
	}
	export class ImportModelArgs {
	    path: string;
	
	    static createFrom(source: any = {}) {
	        return new ImportModelArgs(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	    }
	}
	
	export class KnowledgeResult {
	    path: string;
	    locator: string;
	    text: string;
	    score: number;
	
	    static createFrom(source: any = {}) {
	        return new KnowledgeResult(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.locator = source["locator"];
	        this.text = source["text"];
	        this.score = source["score"];
	    }
	}
	export class KnowledgeSearchResponse {
	    results: KnowledgeResult[];
	
	    static createFrom(source: any = {}) {
	        return new KnowledgeSearchResponse(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.results = this.convertValues(source["results"], KnowledgeResult);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ListConversationsArgs {
	    limit?: number;
	    cursor?: string;
	    q?: string;
	    project?: string;
	
	    static createFrom(source: any = {}) {
	        return new ListConversationsArgs(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.limit = source["limit"];
	        this.cursor = source["cursor"];
	        this.q = source["q"];
	        this.project = source["project"];
	    }
	}
	export class MCPImportResult {
	    added: string[];
	    skipped: Record<string, string>;
	
	    static createFrom(source: any = {}) {
	        return new MCPImportResult(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.added = source["added"];
	        this.skipped = source["skipped"];
	    }
	}
	export class MCPTool {
	    name: string;
	    description: string;
	    policy: string;
	    model_name: string;
	
	    static createFrom(source: any = {}) {
	        return new MCPTool(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.description = source["description"];
	        this.policy = source["policy"];
	        this.model_name = source["model_name"];
	    }
	}
	export class MCPServer {
	    name: string;
	    transport: string;
	    command?: string;
	    args: string[];
	    url?: string;
	    env_keys: string[];
	    header_keys: string[];
	    enabled: boolean;
	    status: string;
	    error?: string;
	    tools: MCPTool[];
	
	    static createFrom(source: any = {}) {
	        return new MCPServer(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.transport = source["transport"];
	        this.command = source["command"];
	        this.args = source["args"];
	        this.url = source["url"];
	        this.env_keys = source["env_keys"];
	        this.header_keys = source["header_keys"];
	        this.enabled = source["enabled"];
	        this.status = source["status"];
	        this.error = source["error"];
	        this.tools = this.convertValues(source["tools"], MCPTool);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	export class MCPToolPolicyArgs {
	    name: string;
	    tool: string;
	    policy: string;
	
	    static createFrom(source: any = {}) {
	        return new MCPToolPolicyArgs(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.tool = source["tool"];
	        this.policy = source["policy"];
	    }
	}
	export class MemoriesArgs {
	    project?: string;
	
	    static createFrom(source: any = {}) {
	        return new MemoriesArgs(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.project = source["project"];
	    }
	}
	export class MemoryRequest {
	    text: string;
	    project_id?: string;
	
	    static createFrom(source: any = {}) {
	        return new MemoryRequest(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.text = source["text"];
	        this.project_id = source["project_id"];
	    }
	}
	export class NewAgentToken {
	    id: string;
	    name: string;
	    token: string;
	
	    static createFrom(source: any = {}) {
	        return new NewAgentToken(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.name = source["name"];
	        this.token = source["token"];
	    }
	}
	export class OK {
	    ok: boolean;
	
	    static createFrom(source: any = {}) {
	        return new OK(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.ok = source["ok"];
	    }
	}
	export class PendingQuestionState {
	    has_pending_question: boolean;
	    question_id: string;
	    conversationId: string;
	    run_id?: string;
	    tool_call_id?: string;
	    status: string;
	    questions: questions.Question[];
	    // Go type: time
	    created_at: any;
	    // Go type: time
	    expires_at?: any;
	    answers?: Record<string, string>;
	    comments?: string;
	    // Go type: time
	    answered_at?: any;
	    kind: string;
	    source?: questions.Source;
	    tool?: questions.ApprovalTool;
	    approved_arguments?: number[];
	    reason?: string;
	    always?: boolean;
	    server?: string;
	    message?: string;
	    mode?: string;
	    schema?: number[];
	    url?: string;
	    content?: number[];
	    context?: string;
	    answered_by?: string;
	    memory_id?: string;
	    memory_ids?: Record<string, string>;
	
	    static createFrom(source: any = {}) {
	        return new PendingQuestionState(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.has_pending_question = source["has_pending_question"];
	        this.question_id = source["question_id"];
	        this.conversationId = source["conversationId"];
	        this.run_id = source["run_id"];
	        this.tool_call_id = source["tool_call_id"];
	        this.status = source["status"];
	        this.questions = this.convertValues(source["questions"], questions.Question);
	        this.created_at = this.convertValues(source["created_at"], null);
	        this.expires_at = this.convertValues(source["expires_at"], null);
	        this.answers = source["answers"];
	        this.comments = source["comments"];
	        this.answered_at = this.convertValues(source["answered_at"], null);
	        this.kind = source["kind"];
	        this.source = this.convertValues(source["source"], questions.Source);
	        this.tool = this.convertValues(source["tool"], questions.ApprovalTool);
	        this.approved_arguments = source["approved_arguments"];
	        this.reason = source["reason"];
	        this.always = source["always"];
	        this.server = source["server"];
	        this.message = source["message"];
	        this.mode = source["mode"];
	        this.schema = source["schema"];
	        this.url = source["url"];
	        this.content = source["content"];
	        this.context = source["context"];
	        this.answered_by = source["answered_by"];
	        this.memory_id = source["memory_id"];
	        this.memory_ids = source["memory_ids"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ProjectRequest {
	    name?: string;
	    instructions?: string;
	    knowledge?: string[];
	    profile?: string;
	    model?: string;
	
	    static createFrom(source: any = {}) {
	        return new ProjectRequest(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.instructions = source["instructions"];
	        this.knowledge = source["knowledge"];
	        this.profile = source["profile"];
	        this.model = source["model"];
	    }
	}
	export class PullDone {
	    status: string;
	
	    static createFrom(source: any = {}) {
	        return new PullDone(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.status = source["status"];
	    }
	}
	export class PullModelArgs {
	    model: string;
	
	    static createFrom(source: any = {}) {
	        return new PullModelArgs(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.model = source["model"];
	    }
	}
	export class PutMCPServerArgs {
	    name: string;
	    command?: string;
	    args?: string[];
	    env?: Record<string, string>;
	    url?: string;
	    headers?: Record<string, string>;
	    enabled?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new PutMCPServerArgs(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.command = source["command"];
	        this.args = source["args"];
	        this.env = source["env"];
	        this.url = source["url"];
	        this.headers = source["headers"];
	        this.enabled = source["enabled"];
	    }
	}
	export class QuestionsArgs {
	    status?: string;
	
	    static createFrom(source: any = {}) {
	        return new QuestionsArgs(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.status = source["status"];
	    }
	}
	export class RegenerateArgs {
	    id: string;
	    message_id: string;
	    model?: string;
	
	    static createFrom(source: any = {}) {
	        return new RegenerateArgs(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.message_id = source["message_id"];
	        this.model = source["model"];
	    }
	}
	export class Reindexing {
	    reindexing: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Reindexing(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.reindexing = source["reindexing"];
	    }
	}
	export class Reset {
	    reset: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Reset(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.reset = source["reset"];
	    }
	}
	export class RespondArgs {
	    id: string;
	    question_id: string;
	    action: string;
	    answers?: Record<string, questions.AnswerInput>;
	    comments?: string;
	    arguments?: number[];
	    always?: boolean;
	    reason?: string;
	    content?: number[];
	    remember?: string[];
	
	    static createFrom(source: any = {}) {
	        return new RespondArgs(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.question_id = source["question_id"];
	        this.action = source["action"];
	        this.answers = this.convertValues(source["answers"], questions.AnswerInput, true);
	        this.comments = source["comments"];
	        this.arguments = source["arguments"];
	        this.always = source["always"];
	        this.reason = source["reason"];
	        this.content = source["content"];
	        this.remember = source["remember"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class RunStarted {
	    run_id: string;
	
	    static createFrom(source: any = {}) {
	        return new RunStarted(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.run_id = source["run_id"];
	    }
	}
	export class SearchCollectionArgs {
	    id: string;
	    query: string;
	    top_k?: number;
	
	    static createFrom(source: any = {}) {
	        return new SearchCollectionArgs(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.query = source["query"];
	        this.top_k = source["top_k"];
	    }
	}
	export class SelectBranchArgs {
	    id: string;
	    message_id: string;
	    last?: number;
	
	    static createFrom(source: any = {}) {
	        return new SelectBranchArgs(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.message_id = source["message_id"];
	        this.last = source["last"];
	    }
	}
	export class SendArgs {
	    id: string;
	    content?: string;
	    parent_id?: string;
	    attachments?: chat.Attachment[];
	
	    static createFrom(source: any = {}) {
	        return new SendArgs(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.content = source["content"];
	        this.parent_id = source["parent_id"];
	        this.attachments = this.convertValues(source["attachments"], chat.Attachment);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class TraceRecords {
	    records: trace.CardRecord[];
	
	    static createFrom(source: any = {}) {
	        return new TraceRecords(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.records = this.convertValues(source["records"], trace.CardRecord);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class UpdateCollectionArgs {
	    id: string;
	    name?: string;
	    paths?: string[];
	
	    static createFrom(source: any = {}) {
	        return new UpdateCollectionArgs(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.name = source["name"];
	        this.paths = source["paths"];
	    }
	}
	export class UpdateConversationArgs {
	    id: string;
	    title?: string;
	    pinned?: boolean;
	    assistant?: string;
	    model?: string;
	    thinking?: string;
	    knowledge?: string[];
	    project_id?: string;
	
	    static createFrom(source: any = {}) {
	        return new UpdateConversationArgs(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.title = source["title"];
	        this.pinned = source["pinned"];
	        this.assistant = source["assistant"];
	        this.model = source["model"];
	        this.thinking = source["thinking"];
	        this.knowledge = source["knowledge"];
	        this.project_id = source["project_id"];
	    }
	}
	export class UpdateEngineModelArgs {
	    id: string;
	    allow_large?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new UpdateEngineModelArgs(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.allow_large = source["allow_large"];
	    }
	}
	export class UpdateMemoryArgs {
	    id: string;
	    text?: string;
	    auto_answer?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new UpdateMemoryArgs(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.text = source["text"];
	        this.auto_answer = source["auto_answer"];
	    }
	}
	export class UpdateProjectArgs {
	    id: string;
	    name?: string;
	    instructions?: string;
	    knowledge?: string[];
	    profile?: string;
	    model?: string;
	
	    static createFrom(source: any = {}) {
	        return new UpdateProjectArgs(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.name = source["name"];
	        this.instructions = source["instructions"];
	        this.knowledge = source["knowledge"];
	        this.profile = source["profile"];
	        this.model = source["model"];
	    }
	}

}

export namespace assistant {
	
	export class Profile {
	    name: string;
	    system_prompt: string;
	    model: string;
	    tools: string[];
	    tool_calling?: string;
	    thinking?: string;
	    knowledge?: string[];
	
	    static createFrom(source: any = {}) {
	        return new Profile(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.system_prompt = source["system_prompt"];
	        this.model = source["model"];
	        this.tools = source["tools"];
	        this.tool_calling = source["tool_calling"];
	        this.thinking = source["thinking"];
	        this.knowledge = source["knowledge"];
	    }
	}

}

export namespace chat {
	
	export class Attachment {
	    name: string;
	    mime_type: string;
	    size: number;
	    data?: number[];
	
	    static createFrom(source: any = {}) {
	        return new Attachment(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.mime_type = source["mime_type"];
	        this.size = source["size"];
	        this.data = source["data"];
	    }
	}
	export class SearchMatch {
	    message_id?: string;
	    snippet: string;
	
	    static createFrom(source: any = {}) {
	        return new SearchMatch(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.message_id = source["message_id"];
	        this.snippet = source["snippet"];
	    }
	}
	export class Conversation {
	    id: string;
	    title: string;
	    assistant: string;
	    model?: string;
	    thinking?: string;
	    pinned: boolean;
	    knowledge?: string[];
	    agent?: string;
	    project_id?: string;
	    // Go type: time
	    created_at: any;
	    // Go type: time
	    updated_at: any;
	    match?: SearchMatch;
	
	    static createFrom(source: any = {}) {
	        return new Conversation(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.title = source["title"];
	        this.assistant = source["assistant"];
	        this.model = source["model"];
	        this.thinking = source["thinking"];
	        this.pinned = source["pinned"];
	        this.knowledge = source["knowledge"];
	        this.agent = source["agent"];
	        this.project_id = source["project_id"];
	        this.created_at = this.convertValues(source["created_at"], null);
	        this.updated_at = this.convertValues(source["updated_at"], null);
	        this.match = this.convertValues(source["match"], SearchMatch);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Source {
	    n: number;
	    path: string;
	    locator: string;
	    text: string;
	
	    static createFrom(source: any = {}) {
	        return new Source(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.n = source["n"];
	        this.path = source["path"];
	        this.locator = source["locator"];
	        this.text = source["text"];
	    }
	}
	export class MessageStats {
	    model?: string;
	    time_to_first_token_ms: number;
	    duration_ms: number;
	    tokens_per_second: number;
	    prompt_tokens: number;
	    completion_tokens: number;
	    estimated?: boolean;
	    context_length?: number;
	    answer_ms?: number;
	    thinking_note?: string;
	
	    static createFrom(source: any = {}) {
	        return new MessageStats(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.model = source["model"];
	        this.time_to_first_token_ms = source["time_to_first_token_ms"];
	        this.duration_ms = source["duration_ms"];
	        this.tokens_per_second = source["tokens_per_second"];
	        this.prompt_tokens = source["prompt_tokens"];
	        this.completion_tokens = source["completion_tokens"];
	        this.estimated = source["estimated"];
	        this.context_length = source["context_length"];
	        this.answer_ms = source["answer_ms"];
	        this.thinking_note = source["thinking_note"];
	    }
	}
	export class ToolCall {
	    id: string;
	    name: string;
	    arguments: string;
	
	    static createFrom(source: any = {}) {
	        return new ToolCall(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.name = source["name"];
	        this.arguments = source["arguments"];
	    }
	}
	export class Message {
	    id: string;
	    conversationId: string;
	    run_id?: string;
	    role: string;
	    content: string;
	    tool_calls?: ToolCall[];
	    tool_call_id?: string;
	    tool_name?: string;
	    // Go type: time
	    created_at: any;
	    attachments?: Attachment[];
	    parent_id: string;
	    siblings: number;
	    sibling_index: number;
	    sibling_ids?: string[];
	    stats?: MessageStats;
	    reasoning?: string;
	    reasoning_ms?: number;
	    reasoning_source?: string;
	    sources?: Source[];
	
	    static createFrom(source: any = {}) {
	        return new Message(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.conversationId = source["conversationId"];
	        this.run_id = source["run_id"];
	        this.role = source["role"];
	        this.content = source["content"];
	        this.tool_calls = this.convertValues(source["tool_calls"], ToolCall);
	        this.tool_call_id = source["tool_call_id"];
	        this.tool_name = source["tool_name"];
	        this.created_at = this.convertValues(source["created_at"], null);
	        this.attachments = this.convertValues(source["attachments"], Attachment);
	        this.parent_id = source["parent_id"];
	        this.siblings = source["siblings"];
	        this.sibling_index = source["sibling_index"];
	        this.sibling_ids = source["sibling_ids"];
	        this.stats = this.convertValues(source["stats"], MessageStats);
	        this.reasoning = source["reasoning"];
	        this.reasoning_ms = source["reasoning_ms"];
	        this.reasoning_source = source["reasoning_source"];
	        this.sources = this.convertValues(source["sources"], Source);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	export class Project {
	    id: string;
	    name: string;
	    instructions: string;
	    knowledge: string[];
	    profile?: string;
	    model?: string;
	    // Go type: time
	    created_at: any;
	    // Go type: time
	    updated_at: any;
	
	    static createFrom(source: any = {}) {
	        return new Project(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.name = source["name"];
	        this.instructions = source["instructions"];
	        this.knowledge = source["knowledge"];
	        this.profile = source["profile"];
	        this.model = source["model"];
	        this.created_at = this.convertValues(source["created_at"], null);
	        this.updated_at = this.convertValues(source["updated_at"], null);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	

}

export namespace engine {
	
	export class Status {
	    state: string;
	    model?: string;
	    error?: string;
	    backend: string;
	    models_dir: string;
	    models_dir_by_flag: boolean;
	    memory: ram.Machine;
	
	    static createFrom(source: any = {}) {
	        return new Status(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.state = source["state"];
	        this.model = source["model"];
	        this.error = source["error"];
	        this.backend = source["backend"];
	        this.models_dir = source["models_dir"];
	        this.models_dir_by_flag = source["models_dir_by_flag"];
	        this.memory = this.convertValues(source["memory"], ram.Machine);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace i18n {
	
	export class Message {
	    Key: string;
	    Args: any[];
	
	    static createFrom(source: any = {}) {
	        return new Message(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.Key = source["Key"];
	        this.Args = source["Args"];
	    }
	}

}

export namespace library {
	
	export class CatalogEntry {
	    id: string;
	    name: string;
	    repo: string;
	    file: string;
	    revision?: string;
	    size: number;
	    ram: number;
	    capabilities: string[];
	    description: string;
	    installed: boolean;
	    model?: string;
	
	    static createFrom(source: any = {}) {
	        return new CatalogEntry(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.name = source["name"];
	        this.repo = source["repo"];
	        this.file = source["file"];
	        this.revision = source["revision"];
	        this.size = source["size"];
	        this.ram = source["ram"];
	        this.capabilities = source["capabilities"];
	        this.description = source["description"];
	        this.installed = source["installed"];
	        this.model = source["model"];
	    }
	}
	export class Download {
	    id: string;
	    repo: string;
	    file: string;
	    revision: string;
	    catalog_id?: string;
	    state: string;
	    bytes: number;
	    total: number;
	    sha256: string;
	    error?: string;
	    model?: string;
	
	    static createFrom(source: any = {}) {
	        return new Download(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.repo = source["repo"];
	        this.file = source["file"];
	        this.revision = source["revision"];
	        this.catalog_id = source["catalog_id"];
	        this.state = source["state"];
	        this.bytes = source["bytes"];
	        this.total = source["total"];
	        this.sha256 = source["sha256"];
	        this.error = source["error"];
	        this.model = source["model"];
	    }
	}
	export class HubFile {
	    repo: string;
	    file: string;
	    revision: string;
	    size: number;
	    ram: number;
	    memory: number;
	    fits: boolean;
	    free_disk: number;
	    disk_fits: boolean;
	    installed?: string;
	
	    static createFrom(source: any = {}) {
	        return new HubFile(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.repo = source["repo"];
	        this.file = source["file"];
	        this.revision = source["revision"];
	        this.size = source["size"];
	        this.ram = source["ram"];
	        this.memory = source["memory"];
	        this.fits = source["fits"];
	        this.free_disk = source["free_disk"];
	        this.disk_fits = source["disk_fits"];
	        this.installed = source["installed"];
	    }
	}
	export class Source {
	    repo?: string;
	    file?: string;
	    revision?: string;
	    path?: string;
	
	    static createFrom(source: any = {}) {
	        return new Source(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.repo = source["repo"];
	        this.file = source["file"];
	        this.revision = source["revision"];
	        this.path = source["path"];
	    }
	}
	export class Model {
	    id: string;
	    name: string;
	    file: string;
	    size: number;
	    sha256: string;
	    capabilities: string[];
	    source: Source;
	    state: string;
	    error?: string;
	    ram: number;
	    allow_large: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Model(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.name = source["name"];
	        this.file = source["file"];
	        this.size = source["size"];
	        this.sha256 = source["sha256"];
	        this.capabilities = source["capabilities"];
	        this.source = this.convertValues(source["source"], Source);
	        this.state = source["state"];
	        this.error = source["error"];
	        this.ram = source["ram"];
	        this.allow_large = source["allow_large"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace memory {
	
	export class Answer {
	    question: string;
	    labels: string[];
	    input: questions.AnswerInput;
	
	    static createFrom(source: any = {}) {
	        return new Answer(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.question = source["question"];
	        this.labels = source["labels"];
	        this.input = this.convertValues(source["input"], questions.AnswerInput);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Source {
	    type: string;
	    conversationId?: string;
	    question_id?: string;
	
	    static createFrom(source: any = {}) {
	        return new Source(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.type = source["type"];
	        this.conversationId = source["conversationId"];
	        this.question_id = source["question_id"];
	    }
	}
	export class Memory {
	    id: string;
	    text: string;
	    source: Source;
	    project_id?: string;
	    scope_conversation_id?: string;
	    auto_answer: boolean;
	    // Go type: time
	    created_at: any;
	    // Go type: time
	    used_at?: any;
	
	    static createFrom(source: any = {}) {
	        return new Memory(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.text = source["text"];
	        this.source = this.convertValues(source["source"], Source);
	        this.project_id = source["project_id"];
	        this.scope_conversation_id = source["scope_conversation_id"];
	        this.auto_answer = source["auto_answer"];
	        this.created_at = this.convertValues(source["created_at"], null);
	        this.used_at = this.convertValues(source["used_at"], null);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace questions {
	
	export class AnswerInput {
	    selected: string[];
	    custom?: string;
	
	    static createFrom(source: any = {}) {
	        return new AnswerInput(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.selected = source["selected"];
	        this.custom = source["custom"];
	    }
	}
	export class ApprovalTool {
	    server: string;
	    name: string;
	    description: string;
	    arguments: number[];
	    input_schema: number[];
	
	    static createFrom(source: any = {}) {
	        return new ApprovalTool(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.server = source["server"];
	        this.name = source["name"];
	        this.description = source["description"];
	        this.arguments = source["arguments"];
	        this.input_schema = source["input_schema"];
	    }
	}
	export class Source {
	    type: string;
	    server?: string;
	    tool?: string;
	    agent?: string;
	
	    static createFrom(source: any = {}) {
	        return new Source(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.type = source["type"];
	        this.server = source["server"];
	        this.tool = source["tool"];
	        this.agent = source["agent"];
	    }
	}
	export class Option {
	    label: string;
	    description?: string;
	
	    static createFrom(source: any = {}) {
	        return new Option(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.label = source["label"];
	        this.description = source["description"];
	    }
	}
	export class Question {
	    question: string;
	    header?: string;
	    options: Option[];
	    multiSelect: boolean;
	    allowCustom: boolean;
	    placeholder?: string;
	
	    static createFrom(source: any = {}) {
	        return new Question(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.question = source["question"];
	        this.header = source["header"];
	        this.options = this.convertValues(source["options"], Option);
	        this.multiSelect = source["multiSelect"];
	        this.allowCustom = source["allowCustom"];
	        this.placeholder = source["placeholder"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Card {
	    question_id: string;
	    conversationId: string;
	    run_id?: string;
	    tool_call_id?: string;
	    status: string;
	    questions: Question[];
	    // Go type: time
	    created_at: any;
	    // Go type: time
	    expires_at?: any;
	    answers?: Record<string, string>;
	    comments?: string;
	    // Go type: time
	    answered_at?: any;
	    kind: string;
	    source?: Source;
	    tool?: ApprovalTool;
	    approved_arguments?: number[];
	    reason?: string;
	    always?: boolean;
	    server?: string;
	    message?: string;
	    mode?: string;
	    schema?: number[];
	    url?: string;
	    content?: number[];
	    context?: string;
	    answered_by?: string;
	    memory_id?: string;
	    memory_ids?: Record<string, string>;
	
	    static createFrom(source: any = {}) {
	        return new Card(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.question_id = source["question_id"];
	        this.conversationId = source["conversationId"];
	        this.run_id = source["run_id"];
	        this.tool_call_id = source["tool_call_id"];
	        this.status = source["status"];
	        this.questions = this.convertValues(source["questions"], Question);
	        this.created_at = this.convertValues(source["created_at"], null);
	        this.expires_at = this.convertValues(source["expires_at"], null);
	        this.answers = source["answers"];
	        this.comments = source["comments"];
	        this.answered_at = this.convertValues(source["answered_at"], null);
	        this.kind = source["kind"];
	        this.source = this.convertValues(source["source"], Source);
	        this.tool = this.convertValues(source["tool"], ApprovalTool);
	        this.approved_arguments = source["approved_arguments"];
	        this.reason = source["reason"];
	        this.always = source["always"];
	        this.server = source["server"];
	        this.message = source["message"];
	        this.mode = source["mode"];
	        this.schema = source["schema"];
	        this.url = source["url"];
	        this.content = source["content"];
	        this.context = source["context"];
	        this.answered_by = source["answered_by"];
	        this.memory_id = source["memory_id"];
	        this.memory_ids = source["memory_ids"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	

}

export namespace ram {
	
	export class Machine {
	    total: number;
	    available: number;
	
	    static createFrom(source: any = {}) {
	        return new Machine(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.total = source["total"];
	        this.available = source["available"];
	    }
	}

}

export namespace service {
	
	export class ModelInfo {
	    name: string;
	    supports_tools: boolean;
	    tools_unknown?: boolean;
	    supports_vision?: boolean;
	    supports_thinking?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new ModelInfo(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.supports_tools = source["supports_tools"];
	        this.tools_unknown = source["tools_unknown"];
	        this.supports_vision = source["supports_vision"];
	        this.supports_thinking = source["supports_thinking"];
	    }
	}
	export class ModelStatus {
	    reachable: boolean;
	    base_url: string;
	    model: string;
	    demo: boolean;
	    ollama: boolean;
	    message?: string;
	    models: ModelInfo[];
	    server_models?: ModelInfo[];
	
	    static createFrom(source: any = {}) {
	        return new ModelStatus(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.reachable = source["reachable"];
	        this.base_url = source["base_url"];
	        this.model = source["model"];
	        this.demo = source["demo"];
	        this.ollama = source["ollama"];
	        this.message = source["message"];
	        this.models = this.convertValues(source["models"], ModelInfo);
	        this.server_models = this.convertValues(source["server_models"], ModelInfo);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Settings {
	    engine: string;
	    base_url: string;
	    api_key: string;
	    model: string;
	    question_timeout_seconds: number;
	    rate_limit_seconds: number;
	    max_pending_questions: number;
	    theme: string;
	    demo_mode: boolean;
	    api_enabled: boolean;
	    onboarded: boolean;
	    embedding_model: string;
	    agents_enabled: boolean;
	    agents_addr: string;
	    language: string;
	    memory?: string;
	    update_checks?: string;
	    engine_threads: number;
	    engine_models_dir: string;
	
	    static createFrom(source: any = {}) {
	        return new Settings(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.engine = source["engine"];
	        this.base_url = source["base_url"];
	        this.api_key = source["api_key"];
	        this.model = source["model"];
	        this.question_timeout_seconds = source["question_timeout_seconds"];
	        this.rate_limit_seconds = source["rate_limit_seconds"];
	        this.max_pending_questions = source["max_pending_questions"];
	        this.theme = source["theme"];
	        this.demo_mode = source["demo_mode"];
	        this.api_enabled = source["api_enabled"];
	        this.onboarded = source["onboarded"];
	        this.embedding_model = source["embedding_model"];
	        this.agents_enabled = source["agents_enabled"];
	        this.agents_addr = source["agents_addr"];
	        this.language = source["language"];
	        this.memory = source["memory"];
	        this.update_checks = source["update_checks"];
	        this.engine_threads = source["engine_threads"];
	        this.engine_models_dir = source["engine_models_dir"];
	    }
	}
	export class SettingsExport {
	    format: string;
	    version: number;
	    exported_at: string;
	    settings: Settings;
	    profiles: assistant.Profile[];
	    model_stats: store.ModelStats[];
	
	    static createFrom(source: any = {}) {
	        return new SettingsExport(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.format = source["format"];
	        this.version = source["version"];
	        this.exported_at = source["exported_at"];
	        this.settings = this.convertValues(source["settings"], Settings);
	        this.profiles = this.convertValues(source["profiles"], assistant.Profile);
	        this.model_stats = this.convertValues(source["model_stats"], store.ModelStats);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ToolInfo {
	    name: string;
	    description: string;
	
	    static createFrom(source: any = {}) {
	        return new ToolInfo(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.description = source["description"];
	    }
	}

}

export namespace store {
	
	export class ModelStats {
	    model: string;
	    cards_asked: number;
	    answered: number;
	    declined: number;
	    cancelled: number;
	    timed_out: number;
	    median_answer_ms: number;
	    repaired: number;
	    refused: number;
	    corrected: number;
	    updated_at: string;
	
	    static createFrom(source: any = {}) {
	        return new ModelStats(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.model = source["model"];
	        this.cards_asked = source["cards_asked"];
	        this.answered = source["answered"];
	        this.declined = source["declined"];
	        this.cancelled = source["cancelled"];
	        this.timed_out = source["timed_out"];
	        this.median_answer_ms = source["median_answer_ms"];
	        this.repaired = source["repaired"];
	        this.refused = source["refused"];
	        this.corrected = source["corrected"];
	        this.updated_at = source["updated_at"];
	    }
	}

}

export namespace trace {
	
	export class CardRecord {
	    keys: string[];
	    marks: Record<string, number>;
	
	    static createFrom(source: any = {}) {
	        return new CardRecord(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.keys = source["keys"];
	        this.marks = source["marks"];
	    }
	}
	export class PageMark {
	    key: string;
	    hop: string;
	    at: number;
	
	    static createFrom(source: any = {}) {
	        return new PageMark(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.key = source["key"];
	        this.hop = source["hop"];
	        this.at = source["at"];
	    }
	}

}

export namespace update {
	
	export class Available {
	    version: string;
	    notes: string;
	    // Go type: time
	    published: any;
	    size: number;
	
	    static createFrom(source: any = {}) {
	        return new Available(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.version = source["version"];
	        this.notes = source["notes"];
	        this.published = this.convertValues(source["published"], null);
	        this.size = source["size"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Status {
	    current: string;
	    kind: string;
	    auto: boolean;
	    state: string;
	    available?: Available;
	    error?: string;
	    // Go type: time
	    checked_at?: any;
	
	    static createFrom(source: any = {}) {
	        return new Status(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.current = source["current"];
	        this.kind = source["kind"];
	        this.auto = source["auto"];
	        this.state = source["state"];
	        this.available = this.convertValues(source["available"], Available);
	        this.error = source["error"];
	        this.checked_at = this.convertValues(source["checked_at"], null);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

