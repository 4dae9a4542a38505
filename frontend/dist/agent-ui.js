var G=globalThis,F=G.ShadowRoot&&(G.ShadyCSS===void 0||G.ShadyCSS.nativeShadow)&&"adoptedStyleSheets"in Document.prototype&&"replace"in CSSStyleSheet.prototype,yt=Symbol(),Ht=new WeakMap,q=class{constructor(t,e,i){if(this._$cssResult$=!0,i!==yt)throw Error("CSSResult is not constructable. Use `unsafeCSS` or `css` instead.");this.cssText=t,this.t=e}get styleSheet(){let t=this.o,e=this.t;if(F&&t===void 0){let i=e!==void 0&&e.length===1;i&&(t=Ht.get(e)),t===void 0&&((this.o=t=new CSSStyleSheet).replaceSync(this.cssText),i&&Ht.set(e,t))}return t}toString(){return this.cssText}},Q=r=>new q(typeof r=="string"?r:r+"",void 0,yt),y=(r,...t)=>{let e=r.length===1?r[0]:t.reduce((i,s,n)=>i+(o=>{if(o._$cssResult$===!0)return o.cssText;if(typeof o=="number")return o;throw Error("Value passed to 'css' function must be a 'css' function result: "+o+". Use 'unsafeCSS' to pass non-literal values, but take care to ensure page security.")})(s)+r[n+1],r[0]);return new q(e,r,yt)},jt=(r,t)=>{if(F)r.adoptedStyleSheets=t.map(e=>e instanceof CSSStyleSheet?e:e.styleSheet);else for(let e of t){let i=document.createElement("style"),s=G.litNonce;s!==void 0&&i.setAttribute("nonce",s),i.textContent=e.cssText,r.appendChild(i)}},$t=F?r=>r:r=>r instanceof CSSStyleSheet?(t=>{let e="";for(let i of t.cssRules)e+=i.cssText;return Q(e)})(r):r;var{is:Ve,defineProperty:Je,getOwnPropertyDescriptor:Ge,getOwnPropertyNames:Fe,getOwnPropertySymbols:Qe,getPrototypeOf:Ze}=Object,Z=globalThis,Lt=Z.trustedTypes,Xe=Lt?Lt.emptyScript:"",tr=Z.reactiveElementPolyfillSupport,B=(r,t)=>r,bt={toAttribute(r,t){switch(t){case Boolean:r=r?Xe:null;break;case Object:case Array:r=r==null?r:JSON.stringify(r)}return r},fromAttribute(r,t){let e=r;switch(t){case Boolean:e=r!==null;break;case Number:e=r===null?null:Number(r);break;case Object:case Array:try{e=JSON.parse(r)}catch{e=null}}return e}},qt=(r,t)=>!Ve(r,t),Mt={attribute:!0,type:String,converter:bt,reflect:!1,useDefault:!1,hasChanged:qt};Symbol.metadata??=Symbol("metadata"),Z.litPropertyMetadata??=new WeakMap;var k=class extends HTMLElement{static addInitializer(t){this._$Ei(),(this.l??=[]).push(t)}static get observedAttributes(){return this.finalize(),this._$Eh&&[...this._$Eh.keys()]}static createProperty(t,e=Mt){if(e.state&&(e.attribute=!1),this._$Ei(),this.prototype.hasOwnProperty(t)&&((e=Object.create(e)).wrapped=!0),this.elementProperties.set(t,e),!e.noAccessor){let i=Symbol(),s=this.getPropertyDescriptor(t,i,e);s!==void 0&&Je(this.prototype,t,s)}}static getPropertyDescriptor(t,e,i){let{get:s,set:n}=Ge(this.prototype,t)??{get(){return this[e]},set(o){this[e]=o}};return{get:s,set(o){let l=s?.call(this);n?.call(this,o),this.requestUpdate(t,l,i)},configurable:!0,enumerable:!0}}static getPropertyOptions(t){return this.elementProperties.get(t)??Mt}static _$Ei(){if(this.hasOwnProperty(B("elementProperties")))return;let t=Ze(this);t.finalize(),t.l!==void 0&&(this.l=[...t.l]),this.elementProperties=new Map(t.elementProperties)}static finalize(){if(this.hasOwnProperty(B("finalized")))return;if(this.finalized=!0,this._$Ei(),this.hasOwnProperty(B("properties"))){let e=this.properties,i=[...Fe(e),...Qe(e)];for(let s of i)this.createProperty(s,e[s])}let t=this[Symbol.metadata];if(t!==null){let e=litPropertyMetadata.get(t);if(e!==void 0)for(let[i,s]of e)this.elementProperties.set(i,s)}this._$Eh=new Map;for(let[e,i]of this.elementProperties){let s=this._$Eu(e,i);s!==void 0&&this._$Eh.set(s,e)}this.elementStyles=this.finalizeStyles(this.styles)}static finalizeStyles(t){let e=[];if(Array.isArray(t)){let i=new Set(t.flat(1/0).reverse());for(let s of i)e.unshift($t(s))}else t!==void 0&&e.push($t(t));return e}static _$Eu(t,e){let i=e.attribute;return i===!1?void 0:typeof i=="string"?i:typeof t=="string"?t.toLowerCase():void 0}constructor(){super(),this._$Ep=void 0,this.isUpdatePending=!1,this.hasUpdated=!1,this._$Em=null,this._$Ev()}_$Ev(){this._$ES=new Promise(t=>this.enableUpdating=t),this._$AL=new Map,this._$E_(),this.requestUpdate(),this.constructor.l?.forEach(t=>t(this))}addController(t){(this._$EO??=new Set).add(t),this.renderRoot!==void 0&&this.isConnected&&t.hostConnected?.()}removeController(t){this._$EO?.delete(t)}_$E_(){let t=new Map,e=this.constructor.elementProperties;for(let i of e.keys())this.hasOwnProperty(i)&&(t.set(i,this[i]),delete this[i]);t.size>0&&(this._$Ep=t)}createRenderRoot(){let t=this.shadowRoot??this.attachShadow(this.constructor.shadowRootOptions);return jt(t,this.constructor.elementStyles),t}connectedCallback(){this.renderRoot??=this.createRenderRoot(),this.enableUpdating(!0),this._$EO?.forEach(t=>t.hostConnected?.())}enableUpdating(t){}disconnectedCallback(){this._$EO?.forEach(t=>t.hostDisconnected?.())}attributeChangedCallback(t,e,i){this._$AK(t,i)}_$ET(t,e){let i=this.constructor.elementProperties.get(t),s=this.constructor._$Eu(t,i);if(s!==void 0&&i.reflect===!0){let n=(i.converter?.toAttribute!==void 0?i.converter:bt).toAttribute(e,i.type);this._$Em=t,n==null?this.removeAttribute(s):this.setAttribute(s,n),this._$Em=null}}_$AK(t,e){let i=this.constructor,s=i._$Eh.get(t);if(s!==void 0&&this._$Em!==s){let n=i.getPropertyOptions(s),o=typeof n.converter=="function"?{fromAttribute:n.converter}:n.converter?.fromAttribute!==void 0?n.converter:bt;this._$Em=s;let l=o.fromAttribute(e,n.type);this[s]=l??this._$Ej?.get(s)??l,this._$Em=null}}requestUpdate(t,e,i,s=!1,n){if(t!==void 0){let o=this.constructor;if(s===!1&&(n=this[t]),i??=o.getPropertyOptions(t),!((i.hasChanged??qt)(n,e)||i.useDefault&&i.reflect&&n===this._$Ej?.get(t)&&!this.hasAttribute(o._$Eu(t,i))))return;this.C(t,e,i)}this.isUpdatePending===!1&&(this._$ES=this._$EP())}C(t,e,{useDefault:i,reflect:s,wrapped:n},o){i&&!(this._$Ej??=new Map).has(t)&&(this._$Ej.set(t,o??e??this[t]),n!==!0||o!==void 0)||(this._$AL.has(t)||(this.hasUpdated||i||(e=void 0),this._$AL.set(t,e)),s===!0&&this._$Em!==t&&(this._$Eq??=new Set).add(t))}async _$EP(){this.isUpdatePending=!0;try{await this._$ES}catch(e){Promise.reject(e)}let t=this.scheduleUpdate();return t!=null&&await t,!this.isUpdatePending}scheduleUpdate(){return this.performUpdate()}performUpdate(){if(!this.isUpdatePending)return;if(!this.hasUpdated){if(this.renderRoot??=this.createRenderRoot(),this._$Ep){for(let[s,n]of this._$Ep)this[s]=n;this._$Ep=void 0}let i=this.constructor.elementProperties;if(i.size>0)for(let[s,n]of i){let{wrapped:o}=n,l=this[s];o!==!0||this._$AL.has(s)||l===void 0||this.C(s,void 0,n,l)}}let t=!1,e=this._$AL;try{t=this.shouldUpdate(e),t?(this.willUpdate(e),this._$EO?.forEach(i=>i.hostUpdate?.()),this.update(e)):this._$EM()}catch(i){throw t=!1,this._$EM(),i}t&&this._$AE(e)}willUpdate(t){}_$AE(t){this._$EO?.forEach(e=>e.hostUpdated?.()),this.hasUpdated||(this.hasUpdated=!0,this.firstUpdated(t)),this.updated(t)}_$EM(){this._$AL=new Map,this.isUpdatePending=!1}get updateComplete(){return this.getUpdateComplete()}getUpdateComplete(){return this._$ES}shouldUpdate(t){return!0}update(t){this._$Eq&&=this._$Eq.forEach(e=>this._$ET(e,this[e])),this._$EM()}updated(t){}firstUpdated(t){}};k.elementStyles=[],k.shadowRootOptions={mode:"open"},k[B("elementProperties")]=new Map,k[B("finalized")]=new Map,tr?.({ReactiveElement:k}),(Z.reactiveElementVersions??=[]).push("2.1.2");var vt=globalThis,Bt=r=>r,X=vt.trustedTypes,Yt=X?X.createPolicy("lit-html",{createHTML:r=>r}):void 0,xt="$lit$",A=`lit$${Math.random().toFixed(9).slice(2)}$`,kt="?"+A,er=`<${kt}>`,P=document,W=()=>P.createComment(""),z=r=>r===null||typeof r!="object"&&typeof r!="function",At=Array.isArray,Gt=r=>At(r)||typeof r?.[Symbol.iterator]=="function",_t=`[ 	
\f\r]`,Y=/<(?:(!--|\/[^a-zA-Z])|(\/?[a-zA-Z][^>\s]*)|(\/?$))/g,Wt=/-->/g,zt=/>/g,R=RegExp(`>|${_t}(?:([^\\s"'>=/]+)(${_t}*=${_t}*(?:[^ 	
\f\r"'\`<>=]|("|')|))|$)`,"g"),Kt=/'/g,Vt=/"/g,Ft=/^(?:script|style|textarea|title)$/i,St=r=>(t,...e)=>({_$litType$:r,strings:t,values:e}),d=St(1),ni=St(2),oi=St(3),S=Symbol.for("lit-noChange"),g=Symbol.for("lit-nothing"),Jt=new WeakMap,U=P.createTreeWalker(P,129);function Qt(r,t){if(!At(r)||!r.hasOwnProperty("raw"))throw Error("invalid template strings array");return Yt!==void 0?Yt.createHTML(t):t}var Zt=(r,t)=>{let e=r.length-1,i=[],s,n=t===2?"<svg>":t===3?"<math>":"",o=Y;for(let l=0;l<e;l++){let a=r[l],p,u,h=-1,m=0;for(;m<a.length&&(o.lastIndex=m,u=o.exec(a),u!==null);)m=o.lastIndex,o===Y?u[1]==="!--"?o=Wt:u[1]!==void 0?o=zt:u[2]!==void 0?(Ft.test(u[2])&&(s=RegExp("</"+u[2],"g")),o=R):u[3]!==void 0&&(o=R):o===R?u[0]===">"?(o=s??Y,h=-1):u[1]===void 0?h=-2:(h=o.lastIndex-u[2].length,p=u[1],o=u[3]===void 0?R:u[3]==='"'?Vt:Kt):o===Vt||o===Kt?o=R:o===Wt||o===zt?o=Y:(o=R,s=void 0);let f=o===R&&r[l+1].startsWith("/>")?" ":"";n+=o===Y?a+er:h>=0?(i.push(p),a.slice(0,h)+xt+a.slice(h)+A+f):a+A+(h===-2?l:f)}return[Qt(r,n+(r[e]||"<?>")+(t===2?"</svg>":t===3?"</math>":"")),i]},K=class r{constructor({strings:t,_$litType$:e},i){let s;this.parts=[];let n=0,o=0,l=t.length-1,a=this.parts,[p,u]=Zt(t,e);if(this.el=r.createElement(p,i),U.currentNode=this.el.content,e===2||e===3){let h=this.el.content.firstChild;h.replaceWith(...h.childNodes)}for(;(s=U.nextNode())!==null&&a.length<l;){if(s.nodeType===1){if(s.hasAttributes())for(let h of s.getAttributeNames())if(h.endsWith(xt)){let m=u[o++],f=s.getAttribute(h).split(A),w=/([.?@])?(.*)/.exec(m);a.push({type:1,index:n,name:w[2],strings:f,ctor:w[1]==="."?et:w[1]==="?"?rt:w[1]==="@"?it:I}),s.removeAttribute(h)}else h.startsWith(A)&&(a.push({type:6,index:n}),s.removeAttribute(h));if(Ft.test(s.tagName)){let h=s.textContent.split(A),m=h.length-1;if(m>0){s.textContent=X?X.emptyScript:"";for(let f=0;f<m;f++)s.append(h[f],W()),U.nextNode(),a.push({type:2,index:++n});s.append(h[m],W())}}}else if(s.nodeType===8)if(s.data===kt)a.push({type:2,index:n});else{let h=-1;for(;(h=s.data.indexOf(A,h+1))!==-1;)a.push({type:7,index:n}),h+=A.length-1}n++}}static createElement(t,e){let i=P.createElement("template");return i.innerHTML=t,i}};function D(r,t,e=r,i){if(t===S)return t;let s=i!==void 0?e._$Co?.[i]:e._$Cl,n=z(t)?void 0:t._$litDirective$;return s?.constructor!==n&&(s?._$AO?.(!1),n===void 0?s=void 0:(s=new n(r),s._$AT(r,e,i)),i!==void 0?(e._$Co??=[])[i]=s:e._$Cl=s),s!==void 0&&(t=D(r,s._$AS(r,t.values),s,i)),t}var tt=class{constructor(t,e){this._$AV=[],this._$AN=void 0,this._$AD=t,this._$AM=e}get parentNode(){return this._$AM.parentNode}get _$AU(){return this._$AM._$AU}u(t){let{el:{content:e},parts:i}=this._$AD,s=(t?.creationScope??P).importNode(e,!0);U.currentNode=s;let n=U.nextNode(),o=0,l=0,a=i[0];for(;a!==void 0;){if(o===a.index){let p;a.type===2?p=new H(n,n.nextSibling,this,t):a.type===1?p=new a.ctor(n,a.name,a.strings,this,t):a.type===6&&(p=new st(n,this,t)),this._$AV.push(p),a=i[++l]}o!==a?.index&&(n=U.nextNode(),o++)}return U.currentNode=P,s}p(t){let e=0;for(let i of this._$AV)i!==void 0&&(i.strings!==void 0?(i._$AI(t,i,e),e+=i.strings.length-2):i._$AI(t[e])),e++}},H=class r{get _$AU(){return this._$AM?._$AU??this._$Cv}constructor(t,e,i,s){this.type=2,this._$AH=g,this._$AN=void 0,this._$AA=t,this._$AB=e,this._$AM=i,this.options=s,this._$Cv=s?.isConnected??!0}get parentNode(){let t=this._$AA.parentNode,e=this._$AM;return e!==void 0&&t?.nodeType===11&&(t=e.parentNode),t}get startNode(){return this._$AA}get endNode(){return this._$AB}_$AI(t,e=this){t=D(this,t,e),z(t)?t===g||t==null||t===""?(this._$AH!==g&&this._$AR(),this._$AH=g):t!==this._$AH&&t!==S&&this._(t):t._$litType$!==void 0?this.$(t):t.nodeType!==void 0?this.T(t):Gt(t)?this.k(t):this._(t)}O(t){return this._$AA.parentNode.insertBefore(t,this._$AB)}T(t){this._$AH!==t&&(this._$AR(),this._$AH=this.O(t))}_(t){this._$AH!==g&&z(this._$AH)?this._$AA.nextSibling.data=t:this.T(P.createTextNode(t)),this._$AH=t}$(t){let{values:e,_$litType$:i}=t,s=typeof i=="number"?this._$AC(t):(i.el===void 0&&(i.el=K.createElement(Qt(i.h,i.h[0]),this.options)),i);if(this._$AH?._$AD===s)this._$AH.p(e);else{let n=new tt(s,this),o=n.u(this.options);n.p(e),this.T(o),this._$AH=n}}_$AC(t){let e=Jt.get(t.strings);return e===void 0&&Jt.set(t.strings,e=new K(t)),e}k(t){At(this._$AH)||(this._$AH=[],this._$AR());let e=this._$AH,i,s=0;for(let n of t)s===e.length?e.push(i=new r(this.O(W()),this.O(W()),this,this.options)):i=e[s],i._$AI(n),s++;s<e.length&&(this._$AR(i&&i._$AB.nextSibling,s),e.length=s)}_$AR(t=this._$AA.nextSibling,e){for(this._$AP?.(!1,!0,e);t!==this._$AB;){let i=Bt(t).nextSibling;Bt(t).remove(),t=i}}setConnected(t){this._$AM===void 0&&(this._$Cv=t,this._$AP?.(t))}},I=class{get tagName(){return this.element.tagName}get _$AU(){return this._$AM._$AU}constructor(t,e,i,s,n){this.type=1,this._$AH=g,this._$AN=void 0,this.element=t,this.name=e,this._$AM=s,this.options=n,i.length>2||i[0]!==""||i[1]!==""?(this._$AH=Array(i.length-1).fill(new String),this.strings=i):this._$AH=g}_$AI(t,e=this,i,s){let n=this.strings,o=!1;if(n===void 0)t=D(this,t,e,0),o=!z(t)||t!==this._$AH&&t!==S,o&&(this._$AH=t);else{let l=t,a,p;for(t=n[0],a=0;a<n.length-1;a++)p=D(this,l[i+a],e,a),p===S&&(p=this._$AH[a]),o||=!z(p)||p!==this._$AH[a],p===g?t=g:t!==g&&(t+=(p??"")+n[a+1]),this._$AH[a]=p}o&&!s&&this.j(t)}j(t){t===g?this.element.removeAttribute(this.name):this.element.setAttribute(this.name,t??"")}},et=class extends I{constructor(){super(...arguments),this.type=3}j(t){this.element[this.name]=t===g?void 0:t}},rt=class extends I{constructor(){super(...arguments),this.type=4}j(t){this.element.toggleAttribute(this.name,!!t&&t!==g)}},it=class extends I{constructor(t,e,i,s,n){super(t,e,i,s,n),this.type=5}_$AI(t,e=this){if((t=D(this,t,e,0)??g)===S)return;let i=this._$AH,s=t===g&&i!==g||t.capture!==i.capture||t.once!==i.once||t.passive!==i.passive,n=t!==g&&(i===g||s);s&&this.element.removeEventListener(this.name,this,i),n&&this.element.addEventListener(this.name,this,t),this._$AH=t}handleEvent(t){typeof this._$AH=="function"?this._$AH.call(this.options?.host??this.element,t):this._$AH.handleEvent(t)}},st=class{constructor(t,e,i){this.element=t,this.type=6,this._$AN=void 0,this._$AM=e,this.options=i}get _$AU(){return this._$AM._$AU}_$AI(t){D(this,t)}},Xt={M:xt,P:A,A:kt,C:1,L:Zt,R:tt,D:Gt,V:D,I:H,H:I,N:rt,U:it,B:et,F:st},rr=vt.litHtmlPolyfillSupport;rr?.(K,H),(vt.litHtmlVersions??=[]).push("3.3.3");var te=(r,t,e)=>{let i=e?.renderBefore??t,s=i._$litPart$;if(s===void 0){let n=e?.renderBefore??null;i._$litPart$=s=new H(t.insertBefore(W(),n),n,void 0,e??{})}return s._$AI(r),s};var Et=globalThis,O=class extends k{constructor(){super(...arguments),this.renderOptions={host:this},this._$Do=void 0}createRenderRoot(){let t=super.createRenderRoot();return this.renderOptions.renderBefore??=t.firstChild,t}update(t){let e=this.render();this.hasUpdated||(this.renderOptions.isConnected=this.isConnected),super.update(t),this._$Do=te(e,this.renderRoot,this.renderOptions)}connectedCallback(){super.connectedCallback(),this._$Do?.setConnected(!0)}disconnectedCallback(){super.disconnectedCallback(),this._$Do?.setConnected(!1)}render(){return S}};O._$litElement$=!0,O.finalized=!0,Et.litElementHydrateSupport?.({LitElement:O});var ir=Et.litElementPolyfillSupport;ir?.({LitElement:O});(Et.litElementVersions??=[]).push("4.2.2");var V=r=>r??g;function E(r,t){try{return globalThis[r]?.getItem(t)??null}catch{return null}}function T(r,t,e){try{globalThis[r]?.setItem(t,e)}catch{}}var ee="Stalwart-Session",re="stalwart-session",sr="Stalwart-Stream-Ticket",b=class extends Error{constructor(t,e){super(e?.message||`HTTP ${t}`),this.status=t,this.code=e?.error??"",this.body=e}},j=class{constructor(t,e){this.base=String(t??"").replace(/\/+$/,""),this.fetcher=e,this.tickets=new Map}url(t,e=""){return`${this.base}/threads/${encodeURIComponent(t)}${e}`}ticket(t){return this.tickets.get(t)??""}send(t,e){return this.request("POST",t,"/messages",{text:e})}config(){return this.fetchJSON("GET",`${this.base}/config.json`)}interrupts(t){return this.request("GET",t,"/interrupts")}inbox(t={}){let e=Object.entries(t).filter(([,s])=>s!=null&&s!==""),i=new URLSearchParams(e.map(([s,n])=>[s,String(n)])).toString();return this.fetchJSON("GET",`${this.base}/interrupts${i?`?${i}`:""}`)}resume(t,e){return this.request("POST",t,"/resume",e)}feedback(t,e,i){return this.request("POST",t,"/feedback",{message:e,thumb:i})}async request(t,e,i,s){return this.fetchJSON(t,this.url(e,i),s,e)}async fetchJSON(t,e,i,s){let n={Accept:"application/json"},o=E("sessionStorage",re);o&&(n[ee]=o),i!==void 0&&(n["Content-Type"]="application/json");let l=await this.fetcher.call(globalThis,e,{method:t,headers:n,body:i===void 0?void 0:JSON.stringify(i),credentials:"same-origin"}),a=l.headers?.get(ee);a&&T("sessionStorage",re,a);let p=l.headers?.get(sr);p&&s!==void 0&&this.tickets.set(s,p);let u=nr(await l.text());if(!l.ok)throw new b(l.status,u);return u}};function nr(r){try{return r?JSON.parse(r):null}catch{return null}}var ie=Object.freeze({conversation:"Conversation",placeholder:"Write a message",send:"Send",sending:"Sending\u2026",waiting:"Waiting for your decision",confirmTitle:"Confirm {tool}?",argumentsTitle:"What it will use",origin_typed:"you typed it",origin_reply:"you answered it",origin_context:"from your account",origin_computed:"calculated",origin_model:"the assistant wrote it",origin_result:"from an earlier step",origin_agent:"from another assistant",reasonsTitle:"Why this needs you",irreversible:"Nothing can undo this step once it runs.",approve:"Approve",skip:"Skip this step",cancelAll:"Cancel everything",refused:"Not done",rule:"Rule",showRule:"Which rule?",rollbackTitle:"Undoing what this run did",undone:"Undone",notUndoable:"Could not be undone",stuck:"Undoing {tool} failed. What should happen?",retry:"Try again",doneByHand:"I undid it myself",abandon:"Leave it",unknownTitle:"Did {tool} take effect?",happened:"Yes, it happened",didNotHappen:"No, it did not",delegateTitle:"I couldn't work that out. Shall I pass it to the assistant?",delegateApprove:"Yes, pass it on",decline:"No",reconnecting:"Reconnecting\u2026",traceTitle:"What happened",step:"Step {step}",error:"Something went wrong: {message}",thumbUp:"Helpful",thumbDown:"Not helpful",thumbsNotice:"A rated message is kept to improve the assistant, and nothing else of the conversation.",sources:"Sources",inboxTitle:"Waiting for a decision",inboxEmpty:"Nothing is waiting for a decision.",refresh:"Refresh",loadMore:"Load more",loading:"Loading\u2026",threadTitle:"Thread {thread}",lastWords:"Last words",approvalsNone:"Needs {needed} approvals, none given yet",approvalsGiven:"Approved by {names} ({given} of {needed})",approvalCounted:"Approval counted: {given} of {needed}",answered:"Answered thread {thread}",origin_from:"from {tool}",showSource:"What it came from",sourceTooLarge:"Too large to show here.",approveIrreversible:"Approve \u2014 cannot be undone",answerLabel:"Your answer",reason_write:"It changes something outside this conversation.",reason_argument_origin:"You did not give {arg} yourself: check it.",reason_tainted_call:"It comes after {tool}, whose answer is not trusted.",reason_rule:"A rule asks for a person: {rule}.",reason_missing:"It needs {arg}, which was not given.",reason_unread:"The agent could not read that message.",reason_language:"The agent reads {language} only.",reason_undo_failed:"Undoing it failed: {error}.",reason_outcome_unknown:"It may or may not have happened: {cause}.",resultsTitle:"Results",recordApprove:"You approved: {title}",recordApproval:"You approved, and more approvals are needed: {title}",recordSkip:"You skipped: {title}",recordCancelAll:"Cancelled: {title}",recordAnswer:"You answered {value}: {title}",recordHappened:"You said it happened: {title}",recordDidNotHappen:"You said it did not happen: {title}",recordRetry:"You asked to try undoing again: {title}",recordDoneByHand:"You undid it yourself: {title}",recordAbandon:"You left it: {title}",recordDelegate:"You passed it on to the assistant",recordDecline:"You did not pass it on",recordOther:"You answered {decision}: {title}",recordBy:"by {who}",examplesTitle:"Try",origin_typed_by:"{who} typed it",origin_reply_by:"{who} answered it",origin_context_of:"from {who}\u2019s account",origin_typed_them:"the person who asked typed it",origin_reply_them:"the person who asked answered it",origin_context_them:"from the account of the person who asked",decidesApprover:"Needs an approver from {who}",waitsFor:"Waits for {who} to decide",askedBy:"Asked by {who}, {when}",askedByYou:"You asked, {when}",askedAt:"Asked {when}",reason_rule_failed:"The approver rule {rule} could not be checked; the team running this service has been told.",recordApproveBy:"{who} approved: {title}",recordApprovalBy:"{who} approved, and more approvals are needed: {title}",recordSkipBy:"{who} skipped: {title}",recordCancelAllBy:"{who} cancelled: {title}",recordAnswerBy:"{who} answered {value}: {title}",recordHappenedBy:"{who} said it happened: {title}",recordDidNotHappenBy:"{who} said it did not happen: {title}",recordRetryBy:"{who} asked to try undoing again: {title}",recordDoneByHandBy:"{who} undid it by hand: {title}",recordAbandonBy:"{who} left it: {title}",recordDelegateBy:"{who} passed it on to the assistant",recordDeclineBy:"{who} did not pass it on",recordOtherBy:"{who} answered {decision}: {title}",outcomeTitle:"What happened",outcome_done:"{title}: done",outcome_failed:"{title}: failed",outcome_unknown:"{title}: nobody knows yet whether it happened",outcome_started:"{title}: running",outcome_skipped:"{title}: skipped",outcome_cancelled:"{title}: cancelled",outcomeWaits:"It now waits for another answer.",outcomeCounted:"Your approval is counted; it waits for another person\u2019s before it runs.",linkExpires:"This link answers once, until {when}.",linkSignIn:"To answer, sign in: it waits in your inbox.",linkTaken:"Answer taken",linkUsed:"Already answered",linkUsedBy:"{who} already answered this: {decision}, {when}.",linkUsedWhat:"It was answered: {decision}, {when}.",linkUsedAlready:"This was already answered, and this link can no longer be used.",linkExpired:"This link has expired",linkBroken:"This link does not work",linkBrokenText:"It is not a link this service made, or it was changed.",linkSignInTitle:"Sign in to answer",linkNotTaken:"This answer was not taken",linkFailed:"The service failed on this link; its log has the details.",inboxAnswered:"You answered {decision}: {title}",filterTool:"Tool",filterKind:"Kind",allTools:"All tools",allKinds:"All kinds",kind_confirm:"Calls to approve",kind_ask:"Questions to answer",kind_outcome_unknown:"Calls that may not have happened",kind_saga_stuck:"Undos that failed",kind_delegate:"Turns to pass on",deadlineSkip:"Answer by {when}; after that it is skipped.",deadlineCancel:"Answer by {when}; after that the whole request is cancelled.",escalatesAt:"If nobody answers by {when}, {who} will be asked too.",overdueAt:"If nobody answers by {when}, it is sent again as overdue.",escalated:"Nobody has answered yet, so {who} may answer now too.",escalatedOverdue:"Overdue: nobody has answered in time.",expiredSkip:"Nobody answered by {when}, so it was skipped.",expiredCancel:"Nobody answered by {when}, so the whole request was cancelled.",outcome_expired:"{title}: not done, nobody answered in time",recordExpired:"Nobody answered in time, so it was not done: {title}",requestExpired:"This request has expired",linkNothingDone:"Nothing was done with this link."}),C={...ie},Tt=new Set;function or(r){for(let[t,e]of Object.entries(r??{})){if(typeof e!="string")throw new TypeError(`setStrings: the string for "${t}" is not a string`);C[t]=e}for(let t of Tt)t.requestUpdate()}function se(r,t={}){return r.replace(/\{(\w+)\}/g,(e,i)=>t[i]==null?e:String(t[i]))}function c(r,t){return se(Object.hasOwn(C,r)?C[r]:r,t)}var nt=class{constructor(t){this.host=t,t.addController(this)}hostConnected(){Tt.add(this.host)}hostDisconnected(){Tt.delete(this.host)}};var $=class extends O{static get properties(){return{theme:{type:String,reflect:!0}}}constructor(){super(),new nt(this)}};var ar={approve:"recordApprove",skip:"recordSkip",cancel_all:"recordCancelAll",answer:"recordAnswer",happened:"recordHappened",did_not_happen:"recordDidNotHappen",retry:"recordRetry",done_by_hand:"recordDoneByHand",abandon:"recordAbandon",decline:"recordDecline"},ne="stalwart:none";function ot(r){return!r||r.outcome==="refused"||!r.decision?null:{pause:String(r.pause??""),kind:String(r.kind??""),decision:String(r.decision),outcome:String(r.outcome??"taken"),title:String(r.title||r.tool||""),value:r.value,who:lr(r),mine:cr(r),at:dr(r.at)}}function oe(r){if(r.decision==="expired")return c("recordExpired",{title:r.title});let e=r.kind==="delegate"&&r.decision==="approve"?"recordDelegate":r.outcome==="approval"?"recordApproval":ar[r.decision]??"recordOther",i=typeof r.value=="string"?r.value:JSON.stringify(r.value),s=!(r.mine??!r.who)&&r.who;return c(s?`${e}By`:e,{title:r.title,value:i,decision:r.decision,who:r.who})}function at(r){let t=new Date(r);return Number.isNaN(t.getTime())?r:t.toLocaleString(void 0,{dateStyle:"medium",timeStyle:"short"})}function lr(r){let t=r.principal;return t?.iss===ne?"":String(r.name||r.by||t?.sub||"")}function cr(r){return typeof r.by_owner=="boolean"?r.by_owner:!r.principal||r.principal.iss===ne}function dr(r){return typeof r=="number"?new Date(r*1e3).toISOString():typeof r=="string"&&r?r:new Date().toISOString()}var ae=120;function hr(r){let t=le(r);return t.length>ae?`${t.slice(0,ae-1)}\u2026`:t}function le(r){return r==null?"":typeof r=="string"?r:Array.isArray(r)?r.map(t=>t&&typeof t=="object"?le(t):String(t)).join("; "):typeof r=="object"?Object.entries(r).filter(([,t])=>t===null||typeof t!="object").map(([t,e])=>`${t}: ${e}`).join(", "):String(r)}function L(r,t=""){return d`<details class="result">
    <summary>${t?d`<span class="label">${t}</span> `:""}<span class="short">${hr(r)||JSON.stringify(r)}</span></summary>
    <pre class="whole">${JSON.stringify(r,null,2)}</pre>
  </details>`}function J(r){return!!r&&typeof r=="object"&&typeof r.key=="string"}function _(r){if(!J(r))return"";let t={...r.values??{}};return typeof t.when=="string"&&(t.when=at(t.when)),c(r.key,t)}var pr=["turn","step","pause","answer","run","rollback","recovered"],ce=1e3,ur=3e4,fr=2,de=r=>`stalwart-last-event-id:${r}`,lt=class{constructor(t){this.options=t,this.delay=ce,this.source=null,this.timer=void 0,this.failures=0,this.stopped=!1}get last(){return E("sessionStorage",de(this.options.thread))??""}start(){let{url:t,open:e}=this.options,i=this.options.ticket(),s=this.last,n=new URLSearchParams;i&&n.set("ticket",i),s&&n.set("last_event_id",s);let o=n.toString(),l=e(o?`${t}?${o}`:t);this.source=l,l.addEventListener("open",()=>this.opened()),l.addEventListener("error",()=>this.failed(l));for(let a of pr)l.addEventListener(a,p=>this.received(a,p))}stop(){this.stopped=!0,clearTimeout(this.timer),this.source?.close(),this.source=null}opened(){this.delay=ce,this.failures=0,this.options.onReconnecting(!1),this.options.onOpen()}failed(t){this.stopped||t!==this.source||(this.failures+=1,t.readyState===fr?(t.close(),this.options.onReconnecting(!0),this.retry()):this.failures>1&&this.options.onReconnecting(!0))}retry(){this.timer=setTimeout(async()=>{try{await this.options.renew()}catch{this.stopped||this.retry();return}this.stopped||this.start()},this.delay),this.delay=Math.min(this.delay*2,ur)}received(t,e){let i=e.lastEventId??"",s=this.last;if(/^\d+$/.test(i)&&/^\d+$/.test(s)&&Number(i)<=Number(s))return;i&&T("sessionStorage",de(this.options.thread),i);let n=null;try{n=JSON.parse(e.data)}catch{return}this.options.onEvent(t,n,i)}};var mr=Object.freeze({"--stalwart-bg":"#ffffff","--stalwart-fg":"#1a1a1a","--stalwart-muted":"#595959","--stalwart-line":"#d0d0d0","--stalwart-accent":"#0b57d0","--stalwart-accent-fg":"#ffffff","--stalwart-warn":"#8a4b00","--stalwart-bad":"#b3261e","--stalwart-radius":"8px","--stalwart-gap":"12px","--stalwart-font":"system-ui, sans-serif"}),he=Object.freeze({"--stalwart-bg":"#121212","--stalwart-fg":"#f1f1f1","--stalwart-muted":"#bdbdbd","--stalwart-line":"#3c3c3c","--stalwart-accent":"#8ab4f8","--stalwart-accent-fg":"#0b0b0b","--stalwart-warn":"#ffb74d","--stalwart-bad":"#f28b82","--stalwart-radius":"8px","--stalwart-gap":"12px","--stalwart-font":"system-ui, sans-serif"});function Ot(r,t){let e=Object.entries(r).map(([i,s])=>`${i.replace("--stalwart-","--_")}: var(${i}, ${s});`);return`color-scheme: ${t}; ${e.join(" ")}`}var pe=`
:host { ${Ot(mr,"light")} }
@media (prefers-color-scheme: dark) { :host(:not([theme="light"])) { ${Ot(he,"dark")} } }
:host([theme="dark"]) { ${Ot(he,"dark")} }
`;var v=[Q(pe),y`
    :host {
      display: block;
      box-sizing: border-box;
      color: var(--_fg);
      background: var(--_bg);
      font-family: var(--_font);
      line-height: 1.4;
    }
    :host([hidden]) {
      display: none;
    }
    *,
    *::before,
    *::after {
      box-sizing: inherit;
    }
    [hidden] {
      display: none !important;
    }
    h2,
    h3 {
      margin: 0 0 calc(var(--_gap) / 2);
      font-size: 1em;
      font-weight: 600;
    }
    p,
    ul,
    ol,
    dl {
      margin: 0 0 calc(var(--_gap) / 2);
    }
    ul,
    ol {
      padding-inline-start: calc(var(--_gap) * 1.5);
    }
    button {
      font: inherit;
      color: var(--_accent-fg);
      background: var(--_accent);
      border: 1px solid var(--_accent);
      border-radius: var(--_radius);
      padding: calc(var(--_gap) / 3) var(--_gap);
      cursor: pointer;
    }
    button.quiet {
      color: var(--_accent);
      background: var(--_bg);
    }
    button[aria-pressed='true'] {
      color: var(--_accent-fg);
      background: var(--_accent);
    }
    button:disabled {
      cursor: default;
      opacity: 0.6;
    }
    input,
    textarea {
      font: inherit;
      color: var(--_fg);
      background: var(--_bg);
      border: 1px solid var(--_muted);
      border-radius: var(--_radius);
      padding: calc(var(--_gap) / 2);
    }
    :focus-visible {
      outline: 2px solid var(--_accent);
      outline-offset: 2px;
    }
    .muted {
      color: var(--_muted);
    }
    .label {
      font-weight: 600;
    }
    details.result summary {
      cursor: pointer;
      overflow-wrap: anywhere;
    }
    details.result pre {
      margin: calc(var(--_gap) / 4) 0 0;
      padding: calc(var(--_gap) / 2);
      max-height: 16em;
      overflow: auto;
      white-space: pre-wrap;
      overflow-wrap: anywhere;
      font-family: ui-monospace, monospace;
      border: 1px solid var(--_line);
      border-radius: var(--_radius);
    }
  `];var ue=[v,y`
    :host {
      display: flex;
      flex-direction: column;
      gap: var(--_gap);
      padding: var(--_gap);
    }
    [part='log'] {
      flex: 1 1 auto;
      min-height: 0;
      overflow-y: auto;
      display: flex;
      flex-direction: column;
      gap: var(--_gap);
    }
    .turn,
    .reply {
      max-width: 85%;
      padding: calc(var(--_gap) / 2) var(--_gap);
      border-radius: var(--_radius);
      border: 1px solid var(--_line);
    }
    .turn {
      align-self: flex-end;
      border-color: var(--_accent);
    }
    .reply {
      align-self: flex-start;
    }
    .text {
      margin: 0;
      white-space: pre-wrap;
      overflow-wrap: anywhere;
    }
    .results {
      list-style: none;
      margin: calc(var(--_gap) / 2) 0 0;
      padding: 0;
    }
    .results .label {
      font-family: ui-monospace, monospace;
    }
    .record {
      align-self: stretch;
      padding: calc(var(--_gap) / 2) var(--_gap);
      border-inline-start: 4px solid var(--_accent);
    }
    .record p {
      margin: 0;
    }
    .record .what {
      font-weight: 600;
    }
    .about p {
      margin: 0 0 calc(var(--_gap) / 2);
    }
    .examples {
      list-style: none;
      padding: 0;
      display: flex;
      flex-wrap: wrap;
      gap: calc(var(--_gap) / 2);
    }
    textarea:disabled {
      opacity: 0.6;
    }
    [part='thumbs'] {
      display: flex;
      gap: calc(var(--_gap) / 2);
      margin-top: calc(var(--_gap) / 2);
    }
    [part='status'].bad {
      color: var(--_bad);
    }
    [part='composer'] {
      display: flex;
      gap: calc(var(--_gap) / 2);
      align-items: flex-end;
    }
    textarea {
      flex: 1 1 auto;
      resize: vertical;
    }
    [part='thumbs-notice'] {
      margin: 0;
    }
    summary {
      cursor: pointer;
      color: var(--_accent);
    }
  `];var fe="stalwart-thread",me=200,gr=Object.fromEntries(["entries","waiting","trace","text","sending","deciding","reconnecting","error","about"].map(r=>[r,{state:!0}])),wr=new Set(["pause","answer","run","rollback","recovered"]),ct=class extends ${static get styles(){return ue}static get properties(){return{base:{type:String},thread:{type:String},thumbs:{type:Boolean},eventSource:{attribute:!1},fetcher:{attribute:!1},...gr}}constructor(){super(),this.base="",this.thread="",this.thumbs=!1,this.eventSource=t=>new EventSource(t),this.fetcher=globalThis.fetch,Object.assign(this,{entries:[],waiting:[],trace:[],text:"",sending:!1,deciding:0,reconnecting:!1,error:"",about:null}),this.link=null,this.addEventListener("stalwart-decision",t=>this.decide(t))}connectedCallback(){super.connectedCallback(),this.hasUpdated&&this.connect()}disconnectedCallback(){super.disconnectedCallback(),this.disconnect()}willUpdate(t){["base","thread","eventSource","fetcher"].some(e=>t.has(e))&&this.connect()}updated(t){(t.has("entries")||t.has("trace"))&&this.keepView(),(t.has("entries")||t.has("waiting"))&&this.scrollLog()}render(){let t=V(this.theme||void 0),e=this.sources(),i=this.waiting.length>0;return d`<slot name="header"></slot>
      <div part="log" role="log" aria-live="polite" aria-label=${c("conversation")} tabindex="0">
        ${this.entries.length||i?"":this.renderAbout()}
        ${this.entries.map(s=>this.renderEntry(s,t))}
        ${this.waiting.map(s=>d`<stalwart-confirm .interrupt=${s} theme=${t}></stalwart-confirm>`)}
      </div>
      <section part="citations" aria-label=${c("sources")} ?hidden=${!e.length}>
        <ul part="sources">
          ${e.map(s=>d`<li>${vr(s)}</li>`)}
        </ul>
      </section>
      <details part="steps">
        <summary>${c("traceTitle")}</summary>
        <stalwart-trace .events=${this.trace} theme=${t}></stalwart-trace>
      </details>
      <div part="status" role="status" class=${this.error?"bad":""}>${this.statusText()}</div>
      <form part="composer" @submit=${this.submit}>
        <textarea
          name="text"
          rows="2"
          aria-label=${c("placeholder")}
          placeholder=${c("placeholder")}
          .value=${this.text}
          ?readonly=${this.sending}
          ?disabled=${i}
          @input=${this.typed}
          @keydown=${this.keydown}
        ></textarea>
        <button type="submit" ?disabled=${this.sending||i}>${c("send")}</button>
      </form>
      <p part="thumbs-notice" class="muted" ?hidden=${!this.thumbs}>${c("thumbsNotice")}</p>
      <slot name="footer"></slot>`}renderEntry(t,e){switch(t.kind){case"turn":return d`<div class="entry turn" data-entry=${t.n} tabindex="-1"><p class="text">${t.text}</p></div>`;case"reply":return d`<div class="entry reply" data-entry=${t.n} data-id=${V(t.id)} tabindex="-1">
          ${t.text?d`<p class="text">${t.text}</p>`:""} ${br(t.results??[])}
          ${this.thumbs&&t.id?this.renderThumbs(t):""}
        </div>`;case"record":return _r(t);case"refusal":return d`<stalwart-decision
          class="entry"
          data-entry=${t.n}
          tabindex="-1"
          rule=${t.rule??""}
          sentence=${t.sentence??""}
          theme=${e}
        ></stalwart-decision>`;default:return d`<stalwart-rollback class="entry" data-entry=${t.n} tabindex="-1" .report=${t.report} theme=${e}></stalwart-rollback>`}}renderAbout(){let t=this.about;if(!t?.agent)return"";let e=Array.isArray(t.examples)?t.examples.filter(i=>typeof i=="string"):[];return d`<section class="about" aria-labelledby="agent">
      <h2 id="agent">${t.agent}</h2>
      ${t.description?d`<p class="description">${t.description}</p>`:""}
      ${e.length?d`<h3 id="examples">${c("examplesTitle")}</h3>
            <ul class="examples" aria-labelledby="examples">
              ${e.map(i=>d`<li><button type="button" class="quiet example" @click=${()=>this.suggest(i)}>${i}</button></li>`)}
            </ul>`:""}
    </section>`}async suggest(t){this.text=t,await this.updateComplete,this.renderRoot.querySelector("textarea")?.focus()}renderThumbs(t){return d`<div part="thumbs">
      <button type="button" class="quiet" data-thumb="up" aria-pressed=${t.thumb==="up"?"true":"false"} @click=${()=>this.rate(t,"up")}>${c("thumbUp")}</button>
      <button type="button" class="quiet" data-thumb="down" aria-pressed=${t.thumb==="down"?"true":"false"} @click=${()=>this.rate(t,"down")}>${c("thumbDown")}</button>
    </div>`}statusText(){if(this.error)return c("error",{message:this.error});if(this.sending||this.deciding)return c("sending");if(this.reconnecting)return c("reconnecting");if(!this.waiting.length)return"";let t=this.waiting.map(e=>_(e.card?.waits_for));return t.every(Boolean)?t[0]:c("waiting")}sources(){let t=[...this.entries].reverse().find(e=>e.kind==="reply");return Array.isArray(t?.sources)?t.sources:[]}connect(){if(this.disconnect(),!this.isConnected)return;let t=this.thread||kr(),e=new j(this.base,this.fetcher),i={thread:t,client:e,stream:null,epoch:0,reading:!1,again:!1};this.link=i;let s=xr(t);this.entries=s.entries,this.trace=s.trace,this.waiting=[],this.error="",this.reconnecting=!1,this.sending=!1,this.deciding=0,this.refresh(),this.describe(i)}async describe(t){try{let e=await t.client.config();t===this.link&&(this.about=e&&typeof e=="object"?e:null)}catch{t===this.link&&(this.about=null)}}follow(t){if(t!==this.link||t.stream)return;let{client:e,thread:i}=t;t.stream=new lt({url:e.url(i,"/stream"),thread:i,ticket:()=>e.ticket(i),renew:()=>e.interrupts(i),open:s=>this.eventSource(s),onEvent:(s,n,o)=>t===this.link&&this.streamed(s,n,o),onOpen:()=>t===this.link&&this.refresh(),onReconnecting:s=>{t===this.link&&(this.reconnecting=s)}});try{t.stream.start()}catch(s){this.fail(s)}}disconnect(){this.link?.stream?.stop(),this.link=null}streamed(t,e,i){t==="step"&&(this.trace=[...this.trace,e].slice(-me)),t==="answer"&&this.recorded(e,i),wr.has(t)&&this.refresh()}recorded(t,e){let i=ot(t);if(!i||e&&this.entries.some(n=>n.kind==="record"&&n.event===e))return;let s=this.entries.find(n=>n.kind==="record"&&!n.event&&n.record?.pause===i.pause&&n.record?.decision===i.decision);s?this.entries=this.entries.map(n=>n===s?{...n,record:i,event:e||"seen"}:n):this.record([{kind:"record",record:i,event:e||"seen"}])}async refresh(){let t=this.link;if(t){if(t.reading||this.deciding){t.again=!0;return}t.reading=!0;try{do{t.again=!1;let e=t.epoch;try{let i=await t.client.interrupts(t.thread);t===this.link&&e===t.epoch&&(this.waiting=Ct(this.waiting,i?.waiting)),this.follow(t)}catch(i){t===this.link&&!(i instanceof b&&i.code==="not_found")&&this.fail(i)}}while(t.again&&t===this.link&&!this.deciding)}finally{t.reading=!1}}}submit(t){t.preventDefault(),this.send()}keydown(t){t.key==="Enter"&&!t.shiftKey&&!t.isComposing&&(t.preventDefault(),this.send())}typed(t){this.text=t.target.value}async send(){let t=this.link,e=this.text.trim();if(!t||!e||this.sending||this.waiting.length)return;let i=this.renderRoot.activeElement?.matches("button[type=submit]");this.sending=!0,this.error="";try{let s=await t.client.send(t.thread,e);if(t!==this.link)return;this.text="",this.record([{kind:"turn",text:e}]),this.apply(s),this.follow(t)}catch(s){t===this.link&&this.fail(s)}finally{t===this.link&&(this.sending=!1)}i&&(await this.updateComplete,this.renderRoot.querySelector("textarea")?.focus())}async decide(t){let{interrupt:e,decision:i,value:s}=t.detail??{},n=this.link;if(!n||!e?.id||!i)return;this.deciding+=1,n.epoch+=1,this.error="";let o;try{let a={interrupt_id:e.id,decision:i,token:e.token};s!==void 0&&(a.value=s);let p=await n.client.resume(n.thread,a);if(n!==this.link)return;o=this.apply(p,this.decided(e,i,s,p)),this.follow(n)}catch(a){if(n!==this.link)return;let p=a instanceof b&&a.code==="pause_expired";p&&(o=this.expired(e)),this.fail(a),a instanceof b&&(a.code==="interrupt_stale"||p)||(this.waiting=this.waiting.map(h=>h===e?{...h}:h))}finally{n===this.link&&(this.deciding-=1,n.again&&!this.deciding&&this.refresh())}await this.updateComplete,((o===void 0?null:this.renderRoot.querySelector(`[data-entry="${o}"]`))??this.renderRoot.querySelector("[part=log]"))?.focus()}expired(t){if(this.waiting=this.waiting.map(i=>i.id===t.id?{...i,expired:!0}:i),this.entries.some(i=>i.kind==="record"&&i.record?.pause===t.id&&i.record?.decision==="expired"))return;let e=ot({...t,pause:t.id,decision:"expired",by:"",principal:null,at:t.expires_at||void 0});return e?this.record([{kind:"record",record:e,event:""}]):void 0}async rate(t,e){let i=this.link;if(!(!i||!t.id))try{await i.client.feedback(i.thread,t.id,e),i===this.link&&(this.entries=this.entries.map(s=>s.n===t.n?{...s,thumb:e}:s))}catch(s){i===this.link&&this.fail(s)}}decided(t,e,i,s){let n=this.entries.some(a=>a.kind==="record"&&a.record?.pause===t.id&&a.record?.decision===e),o=(s?.waiting??[]).some(a=>a.id===t.id),l=ot({...t,pause:t.id,decision:e,value:i,outcome:o?"approval":"taken",by:"",principal:null,at:void 0});return n||!l?[]:[{kind:"record",record:l,event:""}]}apply(t,e=[]){let i=[...e],s=t?.refusals??[],n=yr(t?.reply?.text??"",s),o=$r(t?.steps);(n||o.length)&&i.push({kind:"reply",id:t.reply?.id,text:n,results:o,sources:t.reply?.sources});for(let l of s)i.push({kind:"refusal",sentence:l.sentence,rule:l.rule??""});return t?.rollback&&i.push({kind:"rollback",report:t.rollback}),this.waiting=Ct(this.waiting,t?.waiting),this.record(i)}record(t){if(!t.length)return;let e=(this.entries.at(-1)?.n??0)+1;return this.entries=[...this.entries,...t.map((i,s)=>({...i,n:e+s}))].slice(-me),e}fail(t){t instanceof b&&t.code==="run_waiting"?this.waiting=Ct(this.waiting,t.body?.waiting):t instanceof b&&(t.code==="interrupt_stale"||t.code==="pause_expired")?this.refresh():this.error=t instanceof Error?t.message:String(t)}keepView(){this.link&&T("sessionStorage",ge(this.link.thread),JSON.stringify({entries:this.entries,trace:this.trace}))}scrollLog(){let t=this.renderRoot.querySelector("[part=log]");t&&(t.scrollTop=t.scrollHeight)}};function Ct(r,t){return(t??[]).map(e=>r.find(i=>i.id===e.id&&i.token===e.token)??e)}function yr(r,t){let e=r;for(let i of t)i?.sentence&&(e=e.replace(i.sentence,""));return e.replace(/\s{2,}/g," ").trim()}function $r(r){return Array.isArray(r)?r.filter(t=>t?.status==="done"&&t.result!==null&&t.result!==void 0).map(t=>({tool:String(t.tool??""),result:t.result})):[]}function br(r){return r.length?d`<ul class="results" aria-label=${c("resultsTitle")}>
    ${r.map(t=>d`<li>${L(t.result,t.tool)}</li>`)}
  </ul>`:""}function _r(r){let t=r.record;return t?d`<div class="entry record" data-entry=${r.n} data-decision=${t.decision} data-outcome=${t.outcome} tabindex="-1">
    <p class="what">${oe(t)}</p>
    <p class="meta muted"><time datetime=${t.at}>${at(t.at)}</time></p>
  </div>`:""}function vr(r){if(r&&typeof r=="object"){let{title:t,url:e}=r;return String(t??e??JSON.stringify(r))}return String(r)}var ge=r=>`stalwart-view:${r}`;function xr(r){try{let t=JSON.parse(E("sessionStorage",ge(r))??"{}");return{entries:Array.isArray(t.entries)?t.entries:[],trace:Array.isArray(t.trace)?t.trace:[]}}catch{return{entries:[],trace:[]}}}function kr(){let r=E("localStorage",fe);return r||(r=Ar(),T("localStorage",fe,r)),r}function Ar(){if(typeof crypto.randomUUID=="function")return crypto.randomUUID();let r=crypto.getRandomValues(new Uint8Array(16));r[6]=r[6]&15|64,r[8]=r[8]&63|128;let t=[...r].map(e=>e.toString(16).padStart(2,"0")).join("");return`${t.slice(0,8)}-${t.slice(8,12)}-${t.slice(12,16)}-${t.slice(16,20)}-${t.slice(20)}`}var we={typed:"origin_typed",reply:"origin_reply",context:"origin_context",computed:"origin_computed",model:"origin_model",result:"origin_result",agent:"origin_agent"};function Sr(r){let t=String(r??"").split(":")[0];return Object.hasOwn(we,t)?we[t]:void 0}function Nt(r){let t=Sr(r);return t?c(t):String(r??"")}function ye(r,t=e=>e){let e=String(r??""),[i,...s]=e.split(":"),n=`reason_${i.trim()}`;if(!Object.hasOwn(C,n))return e;let o=s.join(":").trim();return c(n,{arg:t(o),tool:o.replace(/^untrusted:/,""),rule:o,language:Er(o),error:o,cause:o})}function Er(r){try{let t=globalThis.document?.documentElement?.lang||void 0;return new Intl.DisplayNames(t?[t]:void 0,{type:"language"}).of(r)??r}catch{return r}}var $e=[v,y`
    [part='confirm'] {
      border: 1px solid var(--_accent);
      border-radius: var(--_radius);
      padding: var(--_gap);
    }
    [part='turn'] {
      margin: 0 0 calc(var(--_gap) / 2);
      padding-inline-start: var(--_gap);
      border-inline-start: 4px solid var(--_line);
    }
    dl {
      display: grid;
      /* Where a value came from sits beside it, not across a wide screen. */
      grid-template-columns: max-content auto 1fr;
      gap: calc(var(--_gap) / 4) var(--_gap);
    }
    dt {
      font-weight: 600;
    }
    dd {
      margin: 0;
      overflow-wrap: anywhere;
    }
    .value,
    .tool {
      font-family: ui-monospace, monospace;
    }
    [part='irreversible'] {
      color: var(--_warn);
      font-weight: 600;
      margin: 0 0 calc(var(--_gap) / 2);
      padding-inline-start: calc(var(--_gap) / 2);
      border-inline-start: 4px solid var(--_warn);
    }
    button.irreversible {
      background: var(--_warn);
      border-color: var(--_warn);
    }
    /* Destructive: the refusal colour, outlined, never the accent's filled look of the answer that goes on. */
    button.danger {
      color: var(--_bad);
      background: var(--_bg);
      border-color: var(--_bad);
    }
    [part='asked'],
    [part='deciders'] {
      margin: 0 0 calc(var(--_gap) / 4);
    }
    [part='waits-for'] {
      font-weight: 600;
      margin: calc(var(--_gap) / 2) 0;
      padding: calc(var(--_gap) / 4) calc(var(--_gap) / 2);
      border-inline-start: 4px solid var(--_accent);
    }
    /* The deadline: quiet until less than an hour is left, then in the warning colour. */
    [part='deadline'] {
      margin: calc(var(--_gap) / 2) 0;
      padding-inline-start: calc(var(--_gap) / 2);
      border-inline-start: 4px solid var(--_line);
    }
    [part='deadline'][data-urgent] {
      color: var(--_warn);
      font-weight: 600;
      border-inline-start-color: var(--_warn);
    }
    [part='deadline'] + [part='escalation'] {
      margin-top: calc(var(--_gap) / -4);
    }
    [part='escalation'] {
      margin: 0 0 calc(var(--_gap) / 2);
      padding-inline-start: calc(var(--_gap) / 2 + 4px);
    }
    [part='expired'] {
      font-weight: 600;
      margin: calc(var(--_gap) / 2) 0 0;
      padding: calc(var(--_gap) / 4) calc(var(--_gap) / 2);
      border-inline-start: 4px solid var(--_muted);
    }
    [data-expired] {
      border-color: var(--_line);
    }
    dt {
      grid-column: 1;
    }
    .too-large {
      font-style: italic;
    }
    [part='choices'] {
      display: flex;
      flex-wrap: wrap;
      gap: calc(var(--_gap) / 2);
      margin: 0;
    }
    [part='choices'] label {
      flex: 1 1 100%;
      font-weight: 600;
    }
    [part='choices'] input {
      flex: 1 1 12em;
    }
    @media (max-width: 480px) {
      dl {
        grid-template-columns: max-content auto;
      }
      dd.origin {
        grid-column: 2;
      }
    }
  `];var be={approve:"approve",skip:"skip",cancel_all:"cancelAll",happened:"happened",did_not_happen:"didNotHappen",retry:"retry",done_by_hand:"doneByHand",abandon:"abandon",answer:"send",decline:"decline"},_e={confirm:"confirmTitle",outcome_unknown:"unknownTitle",saga_stuck:"stuck",delegate:"delegateTitle"},Tr={chosen:{state:!0}},Or=new Set(["cancel_all","abandon"]),ve={primary:"",secondary:"quiet",danger:"danger"},Cr=new Set(["confirm","ask","delegate"]),Rt=3600*1e3,Nr=2**31-1,dt=class extends ${static get styles(){return $e}static get properties(){return{interrupt:{attribute:!1},...Tr}}constructor(){super(),this.interrupt=null,this.chosen="",this.timer=void 0}disconnectedCallback(){super.disconnectedCallback(),clearTimeout(this.timer),this.timer=void 0}updated(){clearTimeout(this.timer),this.timer=void 0;let t=this.interrupt;if(!t||!this.isConnected)return;let e=xe(t,ke(t));if(e===null||e<=0)return;let i=e>Rt?e-Rt:e;this.timer=setTimeout(()=>this.requestUpdate(),Math.min(i+50,Nr))}willUpdate(t){t.has("interrupt")&&(this.chosen="")}render(){let t=this.interrupt;if(!t)return d``;let e=ke(t),i=e?.kind||t.kind,s=Ee(t,e),n=e?e.question:t.question,o=e?e.irreversible:t.irreversible,l=_(e?.waits_for),a=l&&e?.deciders?.key==="decidesApprover"?"":_(e?.deciders),p=_(e?.asked),u=xe(t,e),h=Cr.has(i)&&(t.expired===!0||u!==null&&u<=0);return d`<section part="confirm" aria-labelledby="title" data-kind=${i} ?data-expired=${h}>
      ${o&&!h?d`<p part="irreversible">${c("irreversible")}</p>`:""}
      <h2 id="title" data-title=${t.title??""}>${s}</h2>
      ${i==="confirm"&&n&&n!==`${s}?`?d`<p class="question">${n}</p>`:""}
      ${p?d`<p part="asked" class="muted" data-when=${e?.asked?.values?.when??""}>${p}</p>`:""}
      ${a?d`<p part="deciders" data-key=${e?.deciders?.key}>${a}</p>`:""}
      ${h?"":this.renderDeadline(t,e,u)}
      ${l&&!h?d`<p part="waits-for">${l}</p>`:""}
      ${i==="delegate"?d`<blockquote part="turn">${Ut(t.turn)}</blockquote>`:""}
      ${this.renderArguments(Dr(t,e))} ${this.renderReasons(Ir(t,e))}
      ${i==="saga_stuck"?this.renderPending(t.pending??[]):""}
      ${h?Pr(t,e):i==="ask"?this.renderAsk(e):this.renderChoices(Hr(t,e,o))}
    </section>`}renderDeadline(t,e,i){let s=Rr(t,e),n=Ur(t,e),o=i!==null&&i>0&&i<=Rt;return d`${s?d`<p part="deadline" data-key=${s.key} data-when=${String(s.values?.when??"")} ?data-urgent=${o}>${_(s)}</p>`:""}
    ${n?d`<p part="escalation" class="muted" data-key=${n.key}>${_(n)}</p>`:""}`}renderArguments(t){return t.length?d`<div part="arguments">
      <h3>${c("argumentsTitle")}</h3>
      <dl>
        ${t.map(e=>d`<dt data-name=${e.name} title=${e.name}>${e.label}</dt>
            <dd class="value">${e.shown}</dd>
            <dd class="origin muted" data-origin=${e.origin}>${e.words}</dd>`)}
      </dl>
    </div>`:""}renderReasons(t){return t.length?d`<div part="reasons">
      <h3>${c("reasonsTitle")}</h3>
      <ul>
        ${t.map(e=>d`<li data-reason=${e.code} title=${e.code}>${e.text}</li>`)}
      </ul>
    </div>`:""}renderPending(t){return t.length?d`<ul class="pending">
      ${t.map(e=>d`<li>${c("step",{step:e.step})} <span class="tool">${e.tool}</span></li>`)}
    </ul>`:""}renderChoices(t){return t.length?d`<div part="choices">
      ${t.map(e=>d`<button
          type="button"
          class=${e.className}
          data-answer=${e.decision}
          data-variant=${e.style}
          ?disabled=${!!this.chosen}
          @click=${()=>this.decide(e.decision)}
        >${e.text}</button>`)}
    </div>`:""}renderAsk(t){return t&&!t.answers.some(e=>e.decision==="answer")?"":d`<form part="choices" @submit=${this.submitAnswer}>
      <label for="value">${c("answerLabel")}</label>
      <input id="value" name="value" type="text" autocomplete="off" aria-describedby="title" ?readonly=${!!this.chosen} />
      <button type="submit" data-answer="answer" data-variant="primary" ?disabled=${!!this.chosen}>${c("send")}</button>
    </form>`}submitAnswer(t){t.preventDefault();let i=t.currentTarget.elements.namedItem("value").value;i.trim()&&this.decide("answer",i)}decide(t,e){if(this.chosen||!this.interrupt)return;this.chosen=t;let i=e===void 0?{interrupt:this.interrupt,decision:t}:{interrupt:this.interrupt,decision:t,value:e};this.dispatchEvent(new CustomEvent("stalwart-decision",{bubbles:!0,composed:!0,detail:i}))}};function Rr(r,t){return t&&Object.hasOwn(t,"deadline")?J(t.deadline)?t.deadline:null:typeof r.expires_at!="string"?null:{key:Ae(r,t)?"deadlineCancel":"deadlineSkip",values:{when:r.expires_at}}}function Ur(r,t){if(t&&Object.hasOwn(t,"escalation"))return J(t.escalation)?t.escalation:null;let e=r.escalation;if(!e||typeof e!="object"||typeof e.at!="string")return null;let i=e.to;return e.done?i?{key:"escalated",values:{who:i}}:{key:"escalatedOverdue",values:{}}:i?{key:"escalatesAt",values:{who:i,when:e.at}}:{key:"overdueAt",values:{when:e.at}}}function Ae(r,t){return r.on_expiry==="cancel_all"||t?.deadline?.key==="deadlineCancel"}function Se(r,t){if(typeof r.expires_at=="string")return r.expires_at;let e=t?.deadline?.values?.when;return typeof e=="string"?e:""}function xe(r,t){let e=Date.parse(Se(r,t));return Number.isNaN(e)?null:e-Date.now()}function Pr(r,t){let e=Se(r,t),i=Ae(r,t)?"expiredCancel":"expiredSkip",s=e?_({key:i,values:{when:e}}):c("outcome_expired",{title:Ee(r,t)});return d`<p part="expired" data-key=${i} data-when=${e}>${s}</p>`}function ke(r){let t=r.card;return t&&typeof t=="object"&&Array.isArray(t.answers)?t:null}function Ee(r,t){let e=t?.kind||r.kind;if(e==="ask")return r.prompt||t?.question||r.question||"";let i=t?.title||r.title,s=i||r.tool;return e==="confirm"&&i&&i!==r.tool?i:Object.hasOwn(_e,e)?c(_e[e],{tool:s}):t?.question||r.question||e}function Dr(r,t){let e=Array.isArray(r.arguments)?r.arguments:[];return t?(Array.isArray(t.arguments)?t.arguments:[]).map(i=>{let s=e.find(o=>o.name===i.name),n=i.source?.title?Te(i.source.title,i.source,s?.source?.truncated):J(i.origin)?_(i.origin):Nt(i.origin);return{name:i.name,label:i.label||i.name,shown:i.shown??Ut(i.value),origin:s?.origin??i.origin?.key??"",words:n}}):e.map(i=>({name:i.name,label:i.label||i.name,shown:Ut(i.value),origin:i.origin??"",words:Lr(i)}))}function Ir(r,t){let e=Array.isArray(r.reasons)?r.reasons:[];if(!t){let i=Array.isArray(r.arguments)?r.arguments:[],s=n=>i.find(o=>o.name===n)?.label||n;return e.map(n=>({code:n,text:ye(n,s)}))}return(Array.isArray(t.reasons)?t.reasons:[]).map((i,s)=>({code:String(e[s]??i?.key??""),text:_(i)}))}function Hr(r,t,e){let i=(s,n)=>n==="primary"&&e&&s==="approve"?"irreversible":ve[n]??"quiet";return t?t.answers.map(s=>{let n=Object.hasOwn(ve,s.style)?s.style:"secondary";return{decision:s.decision,text:_(s.words)||s.decision,style:n,className:i(s.decision,n)}}):(r.answers??[]).map((s,n)=>{let o=Or.has(s)?"danger":n?"secondary":"primary";return{decision:s,text:jr(r,s),style:o,className:i(s,o)}})}function jr(r,t){return r.kind==="delegate"&&t==="approve"?c("delegateApprove"):r.irreversible&&t==="approve"?c("approveIrreversible"):Pt(t)}function Pt(r){return Object.hasOwn(be,r)?c(be[r]):r}function Lr(r){let t=r.source;return t?.tool?Te(t.tool,t,t.truncated):Nt(r.origin)}function Te(r,t,e){let i=c("origin_from",{tool:r});return e?d`${i} <span class="too-large">${c("sourceTooLarge")}</span>`:Object.hasOwn(t,"value")?d`${i} ${L(t.value,c("showSource"))}`:i}function Ut(r){return typeof r=="string"?r:JSON.stringify(r)}var Oe=[v,y`
    [part='decision'] {
      border-inline-start: 4px solid var(--_bad);
      padding: calc(var(--_gap) / 2) var(--_gap);
    }
    .refused {
      color: var(--_bad);
    }
    [part='rule'] {
      margin-top: calc(var(--_gap) / 2);
    }
    .rule {
      font-family: ui-monospace, monospace;
      overflow-wrap: anywhere;
    }
  `];var Mr={open:{state:!0}},ht=class extends ${static get styles(){return Oe}static get properties(){return{rule:{type:String},sentence:{type:String},...Mr}}constructor(){super(),this.rule="",this.sentence="",this.open=!1}render(){return d`<div part="decision">
      <p><span class="label refused">${c("refused")}</span> <span class="sentence">${this.sentence}</span></p>
      ${this.rule?d`<button type="button" class="quiet" aria-expanded=${this.open?"true":"false"} aria-controls="rule" @click=${this.toggle}>${c("showRule")}</button>
            <div id="rule" part="rule" ?hidden=${!this.open}>
              <span class="label">${c("rule")}</span> <span class="rule">${this.rule}</span>
            </div>`:""}
    </div>`}toggle(){this.open=!this.open}};var Ce={ATTRIBUTE:1,CHILD:2,PROPERTY:3,BOOLEAN_ATTRIBUTE:4,EVENT:5,ELEMENT:6},Ne=r=>(...t)=>({_$litDirective$:r,values:t}),pt=class{constructor(t){}get _$AU(){return this._$AM._$AU}_$AT(t,e,i){this._$Ct=t,this._$AM=e,this._$Ci=i}_$AS(t,e){return this.update(t,e)}update(t,e){return this.render(...e)}};var{I:qr}=Xt,Re=r=>r;var Ue=()=>document.createComment(""),M=(r,t,e)=>{let i=r._$AA.parentNode,s=t===void 0?r._$AB:t._$AA;if(e===void 0){let n=i.insertBefore(Ue(),s),o=i.insertBefore(Ue(),s);e=new qr(n,o,r,r.options)}else{let n=e._$AB.nextSibling,o=e._$AM,l=o!==r;if(l){let a;e._$AQ?.(r),e._$AM=r,e._$AP!==void 0&&(a=r._$AU)!==o._$AU&&e._$AP(a)}if(n!==s||l){let a=e._$AA;for(;a!==n;){let p=Re(a).nextSibling;Re(i).insertBefore(a,s),a=p}}}return e},N=(r,t,e=r)=>(r._$AI(t,e),r),Br={},Pe=(r,t=Br)=>r._$AH=t,De=r=>r._$AH,ut=r=>{r._$AR(),r._$AA.remove()};var Ie=(r,t,e)=>{let i=new Map;for(let s=t;s<=e;s++)i.set(r[s],s);return i},He=Ne(class extends pt{constructor(r){if(super(r),r.type!==Ce.CHILD)throw Error("repeat() can only be used in text expressions")}dt(r,t,e){let i;e===void 0?e=t:t!==void 0&&(i=t);let s=[],n=[],o=0;for(let l of r)s[o]=i?i(l,o):o,n[o]=e(l,o),o++;return{values:n,keys:s}}render(r,t,e){return this.dt(r,t,e).values}update(r,[t,e,i]){let s=De(r),{values:n,keys:o}=this.dt(t,e,i);if(!Array.isArray(s))return this.ut=o,n;let l=this.ut??=[],a=[],p,u,h=0,m=s.length-1,f=0,w=n.length-1;for(;h<=m&&f<=w;)if(s[h]===null)h++;else if(s[m]===null)m--;else if(l[h]===o[f])a[f]=N(s[h],n[f]),h++,f++;else if(l[m]===o[w])a[w]=N(s[m],n[w]),m--,w--;else if(l[h]===o[w])a[w]=N(s[h],n[w]),M(r,a[w+1],s[h]),h++,w--;else if(l[m]===o[f])a[f]=N(s[m],n[f]),M(r,s[h],s[m]),m--,f++;else if(p===void 0&&(p=Ie(o,f,w),u=Ie(l,h,m)),p.has(l[h]))if(p.has(l[m])){let x=u.get(o[f]),wt=x!==void 0?s[x]:null;if(wt===null){let It=M(r,s[h]);N(It,n[f]),a[f]=It}else a[f]=N(wt,n[f]),M(r,s[h],wt),s[x]=null;f++}else ut(s[m]),m--;else ut(s[h]),h++;for(;f<=w;){let x=M(r,a[w+1]);N(x,n[f]),a[f++]=x}for(;h<=m;){let x=s[h++];x!==null&&ut(x)}return this.ut=o,Pe(r,a),S}});var je=[v,y`
    :host {
      display: flex;
      flex-direction: column;
      gap: var(--_gap);
      padding: var(--_gap);
    }
    .bar {
      display: flex;
      flex-wrap: wrap;
      align-items: center;
      justify-content: space-between;
      gap: calc(var(--_gap) / 2);
    }
    [part='title'],
    [part='empty'] {
      margin: 0;
    }
    [part='status'].bad,
    [part='row-error'] {
      color: var(--_bad);
    }
    [part='list'] {
      list-style: none;
      margin: 0;
      padding: 0;
      display: flex;
      flex-direction: column;
      gap: var(--_gap);
    }
    [part='row'] {
      display: flex;
      flex-direction: column;
      gap: calc(var(--_gap) / 2);
      padding: var(--_gap);
      border: 1px solid var(--_line);
      border-radius: var(--_radius);
    }
    [part='row'] p {
      margin: 0;
    }
    /* The thread's words place the call in its conversation; the card's title is what the eye should land on. */
    [part='thread'] {
      color: var(--_muted);
      overflow-wrap: anywhere;
    }
    /* The row is the card's box: no second border inside it. */
    stalwart-confirm::part(confirm) {
      border: none;
      padding: 0;
    }
    [part='last-words'] q {
      white-space: pre-wrap;
      overflow-wrap: anywhere;
    }
    [part='approvals'] {
      color: var(--_muted);
    }
    [part='filters'] {
      display: flex;
      flex-wrap: wrap;
      gap: calc(var(--_gap) / 2) var(--_gap);
    }
    .filter {
      display: inline-flex;
      align-items: center;
      gap: calc(var(--_gap) / 2);
    }
    .filter label {
      font-weight: 600;
    }
    select {
      font: inherit;
      color: var(--_fg);
      background: var(--_bg);
      border: 1px solid var(--_muted);
      border-radius: var(--_radius);
      padding: calc(var(--_gap) / 4) calc(var(--_gap) / 2);
    }
    [part='status'] .line {
      display: block;
    }
    /* What the last answer did stays in sight while the person works down a long list. */
    [part='status'].notice {
      position: sticky;
      top: 0;
      z-index: 1;
      background: var(--_bg);
      padding: calc(var(--_gap) / 2) var(--_gap);
      border-inline-start: 4px solid var(--_accent);
    }
    [part='status'].notice .line:first-child {
      font-weight: 600;
    }
    [part='status'] .bad {
      color: var(--_bad);
    }
    [part='more'] {
      align-self: flex-start;
    }
  `];var Yr=Object.fromEntries(["rows","next","loaded","loading","error","notice","failed","tools"].map(r=>[r,{state:!0}])),Wr=["confirm","ask","outcome_unknown","saga_stuck","delegate"],zr=["base","kind","tool","pageSize","fetcher"],Kr=50,Vr=4,ft=class extends ${static get styles(){return je}static get properties(){return{base:{type:String},kind:{type:String,reflect:!0},tool:{type:String,reflect:!0},pageSize:{type:Number,attribute:"page-size"},fetcher:{attribute:!1},...Yr}}constructor(){super(),this.base="",this.kind="",this.tool="",this.pageSize=Kr,this.fetcher=globalThis.fetch,Object.assign(this,{rows:[],next:"",loaded:!1,loading:!1,error:"",notice:[],failed:{},tools:{}}),this.client=null,this.epoch=0,this.addEventListener("stalwart-decision",t=>this.decide(t))}connectedCallback(){super.connectedCallback(),this.hasUpdated&&this.refresh()}disconnectedCallback(){super.disconnectedCallback(),this.epoch+=1}willUpdate(t){zr.some(e=>t.has(e))&&(this.client=new j(this.base,this.fetcher),Object.assign(this,{rows:[],next:"",loaded:!1,failed:{}}),this.isConnected&&this.refresh())}updated(){for(let t of this.renderRoot.querySelectorAll("[part=filters] select")){let e=t.name==="tool"?this.tool:this.kind;t.value!==e&&(t.value=e??"")}}render(){let t=V(this.theme||void 0);return d`<div class="bar">
        <h2 id="title" part="title">${c("inboxTitle")}</h2>
        <button type="button" part="refresh" class="quiet" ?disabled=${this.loading} @click=${this.refresh}>${c("refresh")}</button>
      </div>
      ${this.renderFilters()}
      <div part="status" role="status" class=${this.error?"bad":this.notice.length&&!this.loading?"notice":""}>${this.statusText()}</div>
      <p part="empty" class="muted" tabindex="-1" ?hidden=${!this.loaded||this.rows.length>0||!!this.next}>${c("inboxEmpty")}</p>
      <ul part="list" role="list" aria-labelledby="title" ?hidden=${!this.rows.length}>
        ${He(this.rows,e=>e.id,(e,i)=>this.renderRow(e,i,t))}
      </ul>
      <button type="button" part="more" class="quiet" ?hidden=${!this.next} ?disabled=${this.loading} @click=${this.more}>${c("loadMore")}</button>`}renderFilters(){let t=Object.entries({...this.tool?{[this.tool]:this.tool}:{},...this.tools}).sort((s,n)=>s[1].localeCompare(n[1])),e=(s,n,o)=>d`<option value=${s} ?selected=${s===o}>${n}</option>`,i=!t.length&&!this.kind&&!this.rows.length;return d`<div part="filters" ?hidden=${i}>
      <span class="filter">
        <label for="filter-tool">${c("filterTool")}</label>
        <select id="filter-tool" name="tool" @change=${s=>this.tool=Le(s)}>
          ${e("",c("allTools"),this.tool)} ${t.map(([s,n])=>e(s,n,this.tool))}
        </select>
      </span>
      <span class="filter">
        <label for="filter-kind">${c("filterKind")}</label>
        <select id="filter-kind" name="kind" @change=${s=>this.kind=Le(s)}>
          ${e("",c("allKinds"),this.kind)} ${Wr.map(s=>e(s,c(`kind_${s}`),this.kind))}
        </select>
      </span>
    </div>`}renderRow(t,e,i){let s=this.failed[t.id];return d`<li part="row" class="row" data-id=${t.id} data-thread=${t.thread} tabindex="-1" aria-labelledby=${`thread-${e}`}>
      <p part="thread" id=${`thread-${e}`}>${t.turn?d`<q part="last-words">${t.turn}</q>`:c("threadTitle",{thread:t.thread})}</p>
      ${t.approvals&&!t.card?d`<p part="approvals">${Fr(t.approvals)}</p>`:""}
      ${s?d`<p part="row-error" role="alert">${c("error",{message:s})}</p>`:""}
      <stalwart-confirm .interrupt=${t} theme=${i}></stalwart-confirm>
    </li>`}statusText(){return this.error?c("error",{message:this.error}):this.loading?c("loading"):this.notice.map(t=>d`<span class=${t.bad?"line bad":"line"}>${t.text}</span>`)}refresh(){return this.read("")}async more(){if(!this.next)return;let t=this.rows.length,e=this.renderRoot.activeElement?.matches("[part=more]");await this.read(this.next),e&&this.rows.length>t&&this.focusRow(t)}async read(t){let e=this.client;if(!e||t&&this.loading)return;let i=t?this.epoch:++this.epoch;this.loading=!0,this.error="",t||(this.notice=[]);try{let s=await e.inbox({kind:this.kind,tool:this.tool,limit:this.pageSize,cursor:t});for(let o=0;o<Vr&&!s?.waiting?.length&&s?.next;o+=1){if(i!==this.epoch)return;s=await e.inbox({kind:this.kind,tool:this.tool,limit:this.pageSize,cursor:s.next})}if(i!==this.epoch)return;let n=Array.isArray(s?.waiting)?s.waiting:[];t?this.rows=[...this.rows,...n.filter(o=>!this.rows.some(l=>l.id===o.id))]:(this.rows=n,this.failed={}),this.next=s?.next||"",this.loaded=!0,this.tools=Gr(this.tools,n)}catch(s){i===this.epoch&&(this.error=Me(s))}finally{i===this.epoch&&(this.loading=!1)}}async decide(t){let{interrupt:e,decision:i,value:s}=t.detail??{},n=this.client;if(!n||!e?.id||!i)return;let o=this.epoch,l={interrupt_id:e.id,decision:i,token:e.token};s!==void 0&&(l.value=s),this.failed=qe(this.failed,e.id);try{let a=await n.resume(e.thread,l);if(o!==this.epoch)return;let p=(a?.waiting??[]).find(u=>u.id===e.id);p?this.counted({...e,...p}):this.answered(e,i,s,a)}catch(a){if(o!==this.epoch)return;if(a instanceof b&&a.code==="pause_expired"){this.expired(e);return}this.failed={...this.failed,[e.id]:Me(a)},a instanceof b&&a.code==="interrupt_stale"||(this.rows=this.rows.map(h=>h===e?{...h}:h));let u=this.rows.findIndex(h=>h.id===e.id);u>=0&&this.focusRow(u)}}expired(t){this.rows=this.rows.map(i=>i.id===t.id?{...i,expired:!0}:i);let e=t.card?.title||t.title||t.tool||"";this.notice=[{text:c("outcome_expired",{title:e})}],this.focusRow(this.rows.findIndex(i=>i.id===t.id))}counted(t){this.rows=this.rows.map(e=>e.id===t.id?t:e),this.notice=[{text:c("outcomeCounted")}],this.focusRow(this.rows.indexOf(t))}answered(t,e,i,s){let n=this.rows.findIndex(l=>l.id===t.id),o=(Array.isArray(s?.waiting)?s.waiting:[]).filter(l=>l?.id&&l.id!==t.id&&!this.rows.some(a=>a.id===l.id)).map(l=>({turn:t.turn,...l}));this.rows=[...this.rows.slice(0,Math.max(n,0)),...o,...this.rows.slice(n+1)],this.failed=qe(this.failed,t.id),this.notice=Jr(t,e,i,s,o.length>0),this.focusRow(Math.min(n,this.rows.length-1))}async focusRow(t){await this.updateComplete;let e=this.renderRoot.querySelectorAll("[part=row]"),i=this.next?this.renderRoot.querySelector("[part=more]"):null;(e[t]??e[e.length-1]??i??this.renderRoot.querySelector("[part=empty]"))?.focus()}};function Jr(r,t,e,i,s){let n=r.card?.title||r.title||r.tool||"",o=t==="answer"&&e!==void 0?String(e):Pt(t),l=[{text:c("inboxAnswered",{decision:o,title:n})}],p=[...Array.isArray(i?.steps)?i.steps:[]].reverse().find(h=>h?.step===r.step&&(!r.tool||h.tool===r.tool)),u=`outcome_${p?.status}`;return p&&Object.hasOwn(C,u)&&l.push({text:c(u,{title:n}),bad:p.status==="failed"}),s&&l.push({text:c("outcomeWaits")}),l}function Gr(r,t){let e=t.filter(i=>i?.tool&&!Object.hasOwn(r,i.tool));return e.length?{...r,...Object.fromEntries(e.map(i=>[i.tool,String(i.label||i.tool)]))}:r}function Le(r){return r.currentTarget.value}function Fr(r){let t=r.given??[];if(!t.length)return c("approvalsNone",{needed:r.needed});let e=t.map(i=>i.by||i.principal?.sub||"").join(", ");return c("approvalsGiven",{names:e,given:t.length,needed:r.needed})}function Me(r){return r instanceof Error?r.message:String(r)}function qe(r,t){if(!Object.hasOwn(r,t))return r;let e={...r};return delete e[t],e}var Be=[v,y`
    [part='rollback'] {
      border: 1px solid var(--_line);
      border-radius: var(--_radius);
      padding: var(--_gap);
    }
    .not-undone .label {
      color: var(--_bad);
    }
    .tool {
      font-family: ui-monospace, monospace;
    }
  `];var mt=class extends ${static get styles(){return Be}static get properties(){return{report:{attribute:!1}}}constructor(){super(),this.report=null}render(){let t=this.report?.undone??[],e=this.report?.not_undone??[];return d`<section part="rollback" aria-labelledby="title" ?hidden=${!this.report}>
      <h2 id="title">${c("rollbackTitle")}</h2>
      ${t.length?d`<ul class="undone">
            ${t.map(i=>Ye(c("undone"),i,i.by==="person"?i.by:""))}
          </ul>`:""}
      ${e.length?d`<ul class="not-undone">
            ${e.map(i=>Ye(c("notUndoable"),i,i.why))}
          </ul>`:""}
    </section>`}};function Ye(r,t,e){return d`<li>
    <span class="label">${r}</span> <span class="tool">${t.tool}</span>
    ${e?d` <span class="muted">(${e})</span>`:""}
  </li>`}var We=[v,y`
    [part='trace'] {
      padding: calc(var(--_gap) / 2) 0;
    }
    ol {
      list-style: none;
      padding: 0;
    }
    li {
      display: flex;
      flex-wrap: wrap;
      gap: calc(var(--_gap) / 2);
      padding: calc(var(--_gap) / 4) 0;
      border-bottom: 1px solid var(--_line);
    }
    .tool {
      font-family: ui-monospace, monospace;
    }
    details.result {
      flex: 1 1 100%;
    }
  `];var gt=class extends ${static get styles(){return We}static get properties(){return{events:{attribute:!1}}}constructor(){super(),this.events=[]}render(){let t=(this.events??[]).filter(e=>e&&e.tool&&(e.type??"step")==="step");return d`<section part="trace" aria-labelledby="title">
      <h2 id="title">${c("traceTitle")}</h2>
      <ol>
        ${t.map(e=>d`<li>
            <span class="step">${c("step",{step:Qr(e)})}</span>
            <span class="tool">${e.tool}</span>
            <span class="status muted">${e.status??""}</span>
            ${e.result===null||e.result===void 0?"":L(e.result)}
          </li>`)}
      </ol>
    </section>`}};function Qr(r){return r.key!=null?r.key:r.call!=null?`${r.step}.${r.call}`:r.step}var ze="stalwart-access-token",Zr='stalwart-chat[data-signin="fragment"], stalwart-inbox[data-signin="fragment"]';function Ke(r){let t=Xr()||E("sessionStorage",ze)||"";return t&&(r.fetcher=ti(r.fetcher,t)),t}function Dt(r){let t=r.querySelectorAll(Zr);for(let e of t)Ke(e)}function Xr(){let r=new URLSearchParams(location.hash.slice(1)).get("access_token");return r?(T("sessionStorage",ze,r),history.replaceState(history.state,"",location.pathname+location.search),r):""}function ti(r,t){return(e,i={})=>{let s=new Headers(i.headers);return s.set("Authorization",`Bearer ${t}`),r.call(globalThis,e,{...i,headers:s})}}customElements.get("stalwart-chat")||customElements.define("stalwart-chat",ct);customElements.get("stalwart-confirm")||customElements.define("stalwart-confirm",dt);customElements.get("stalwart-decision")||customElements.define("stalwart-decision",ht);customElements.get("stalwart-rollback")||customElements.define("stalwart-rollback",mt);customElements.get("stalwart-trace")||customElements.define("stalwart-trace",gt);customElements.get("stalwart-inbox")||customElements.define("stalwart-inbox",ft);document.readyState==="loading"?document.addEventListener("DOMContentLoaded",()=>Dt(document),{once:!0}):Dt(document);export{ct as StalwartChat,dt as StalwartConfirm,ht as StalwartDecision,ft as StalwartInbox,mt as StalwartRollback,gt as StalwartTrace,se as format,or as setStrings,ie as shipped,Ke as signInFromFragment,C as strings};
/*! Bundled license information:

@lit/reactive-element/css-tag.js:
  (**
   * @license
   * Copyright 2019 Google LLC
   * SPDX-License-Identifier: BSD-3-Clause
   *)

@lit/reactive-element/reactive-element.js:
lit-html/lit-html.js:
lit-element/lit-element.js:
lit-html/directive.js:
lit-html/directives/repeat.js:
  (**
   * @license
   * Copyright 2017 Google LLC
   * SPDX-License-Identifier: BSD-3-Clause
   *)

lit-html/is-server.js:
  (**
   * @license
   * Copyright 2022 Google LLC
   * SPDX-License-Identifier: BSD-3-Clause
   *)

lit-html/directives/if-defined.js:
  (**
   * @license
   * Copyright 2018 Google LLC
   * SPDX-License-Identifier: BSD-3-Clause
   *)

lit-html/directive-helpers.js:
  (**
   * @license
   * Copyright 2020 Google LLC
   * SPDX-License-Identifier: BSD-3-Clause
   *)
*/
